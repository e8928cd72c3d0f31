/**
 * The `Warning` response headers of one request, as kube-apiserver's per-request warning recorder
 * writes them: every text once (however many webhooks, phases or checks give it), empty texts and
 * texts with control characters left out, and a budget of 4096 characters (runes) for all texts
 * together; once a text would exceed it, every text is cut to 256 characters and the headers are
 * written again, and further texts are added (cut) only while the budget lasts. Pure.
 */

/** The total number of characters of warning text a response carries before texts are cut. */
export const TOTAL_RUNES = 4 * 1024;
/** The length texts are cut to once the total is exceeded. */
export const ITEM_RUNES = 256;

const CONTROL = /\p{Cc}/u;

/** `299 - "text"`, quoting as Go's `NewWarningHeader` does (only `"` and `\` are escaped). */
export const header = (text: string): string => `299 - "${text.replace(/["\\]/g, (c) => `\\${c}`)}"`;

const cut = (runes: ReadonlyArray<string>): ReadonlyArray<string> =>
  runes.length > ITEM_RUNES ? runes.slice(0, ITEM_RUNES) : runes;

/**
 * The `Warning` header values for the warning texts a request gathered, in the order they were
 * given.
 *
 * @example
 * headers(["a", "b", "a", ""]) // ['299 - "a"', '299 - "b"']
 */
export const headers = (texts: ReadonlyArray<string>): ReadonlyArray<string> => {
  const recorded = new Set<string>();
  const ordered: Array<ReadonlyArray<string>> = [];
  let out: Array<string> = [];
  let written = 0;
  let truncating = false;
  for (const text of texts) {
    if (text === "") continue;
    if (truncating && written >= TOTAL_RUNES) break;
    if (recorded.has(text)) continue;
    recorded.add(text);
    const runes = [...text];
    ordered.push(runes);
    // A text a header cannot carry is remembered (so never retried) but not written.
    if (CONTROL.test(text)) continue;
    const shown = truncating ? cut(runes) : runes;
    if (written + shown.length <= TOTAL_RUNES || truncating) {
      written += shown.length;
      out.push(header(shown.join("")));
      continue;
    }
    truncating = true;
    written = 0;
    out = [];
    for (const earlier of ordered) {
      const text = earlier.join("");
      if (CONTROL.test(text)) continue;
      const short = cut(earlier);
      written += short.length;
      out.push(header(short.join("")));
    }
  }
  return out;
};
