// Text from data files (items/*.jsonl, raw records, failures) printed to a terminal (issue 42): every control
// character but the line feed and the tab is shown escaped, so a question or a reply cannot drive the terminal
// (an OSC 52 clipboard write, a screen clear, a title change, 8-bit CSI) or reorder what is shown (bidi overrides).

/** C0 controls but \t and \n, DEL, C1 controls, the bidi embeddings, overrides and isolates, line/paragraph separators. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex4 = (c: string) => c.charCodeAt(0).toString(16).padStart(4, '0');

/** `text` with each control character shown as `\u{XXXX}` (visible, inert). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${hex4(c)}}`);
}

/** A JSON text with the characters JSON.stringify leaves raw (DEL, C1, bidi, separators) as `\uXXXX` escapes: the same value, inert on a terminal. */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE, (c) => `\\u${hex4(c)}`);
}
