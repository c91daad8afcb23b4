import type { Page } from 'playwright-core';

/**
 * Measurements of a page's layout as Chromium laid it out. The probes run in the page and are
 * written as JavaScript text: the tests are type-checked without the DOM library.
 */

const inPage = <T>(page: Page, body: string): Promise<T> => page.evaluate(`(() => { ${body} })()`);

/** How far the page scrolls sideways (0: not at all). */
export const sideways = (page: Page): Promise<number> => inPage(page, 'return document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth;');

/** The text of every badge on a card that is cut (wider inside than shown) or sticks out of its card's box. */
export const badgesOutside = (page: Page): Promise<string[]> =>
  inPage(
    page,
    `return [...document.querySelectorAll('li.card .badge')]
      .filter((b) => {
        const card = b.closest('li.card').getBoundingClientRect();
        const r = b.getBoundingClientRect();
        return b.scrollWidth > b.clientWidth || r.left < card.left - 0.5 || r.right > card.right + 0.5;
      })
      .map((b) => b.textContent);`,
  );

/** The first element's text split into its lines as laid out, each character placed by its own box. */
export const textLines = (page: Page, selector: string): Promise<string[]> =>
  inPage(
    page,
    `const lines = [];
    let top = null;
    const walker = document.createTreeWalker(document.querySelector(${JSON.stringify(selector)}), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (let i = 0; i < n.textContent.length; i++) {
        const range = document.createRange();
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const t = Math.round(range.getBoundingClientRect().top);
        if (top === null || Math.abs(t - top) > 3) lines.push('');
        top = t;
        lines[lines.length - 1] += n.textContent[i];
      }
    }
    return lines;`,
  );

/** Sets the width of the paragraph holding the first element (the CSP allows no style sheet of a test's own). */
export const narrowed = (page: Page, selector: string, width: string): Promise<void> =>
  inPage(page, `document.querySelector(${JSON.stringify(selector)}).closest('p').style.width = ${JSON.stringify(width)};`);
