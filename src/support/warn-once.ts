/**
 * Reports a cap that bites once per target and config (whoever calls this holds one per target),
 * so a log is not flooded at every poll while the counts say the rest.
 */
export function warnOnce(log: { warn: (fields: object, msg: string) => void }, msg: string): (fields: object) => void {
  let warned = false;
  return (fields) => {
    if (warned) return;
    warned = true;
    log.warn(fields, msg);
  };
}
