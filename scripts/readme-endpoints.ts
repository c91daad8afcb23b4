const START = /<!-- endpoints: [^>]*-->\n/;
const END = '\n<!-- /endpoints -->';

/** The README with the text between its endpoint markers replaced by `table`. */
export function withEndpointsTable(readme: string, table: string): string {
  const start = START.exec(readme);
  const end = readme.indexOf(END);
  if (!start || end < 0) throw new Error('README.md lost its <!-- endpoints --> markers');
  return readme.slice(0, start.index + start[0].length) + table + readme.slice(end);
}

/** The table between the README's endpoint markers. */
export function endpointsTableOf(readme: string): string {
  const start = START.exec(readme);
  const end = readme.indexOf(END);
  if (!start || end < 0) throw new Error('README.md lost its <!-- endpoints --> markers');
  return readme.slice(start.index + start[0].length, end);
}
