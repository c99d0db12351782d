// Text from files and from the command line, made safe to print on a terminal.

/**
 * The characters a terminal acts on instead of showing: C0 controls (NUL, BEL, BS, ESC, newline, ...),
 * DEL, C1 controls (U+0080 to U+009F; U+009B starts a control sequence like ESC [ on some terminals), the
 * bidirectional embeddings, overrides and isolates (U+202A to U+202E, U+2066 to U+2069), which reorder
 * the text around them (the "Trojan Source" characters), and the Unicode line and paragraph separators.
 * Left alone: the marks LRM, RLM and ALM, which names in right-to-left scripts use and which reorder
 * nothing beyond the neighbouring punctuation.
 */
const RANGES = '\\u000b-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const CONTROL = new RegExp(`[\\u0000-\\u000a${RANGES}]`, 'g');
const CONTROL_BUT_NEWLINE = new RegExp(`[\\u0000-\\u0009${RANGES}]`, 'g');

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeOne(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every terminal control character (see above) written as a visible escape: `\n`, `\r`,
 * `\t`, `\xNN` below U+0100, `\uNNNN` above. For one field of a message (a path, a joint name, a parser
 * message that quotes file text): a newline in a file name cannot split a message in two, and an escape
 * sequence in a joint name cannot recolour, retitle or clear the terminal. Backslashes are kept as they
 * are (Windows paths), so the form is for reading, not for parsing back; `--json` has the exact text.
 *
 * @example
 * escapeControl('Hips\x1b]0;pwned\x07'); // 'Hips\\x1b]0;pwned\\x07'
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, escapeOne);
}

/**
 * Like {@link escapeControl} but keeps newlines: for a whole multi-line report or message whose fields
 * have been escaped already, as the last step before it reaches the terminal.
 *
 * @example
 * escapeLines('a\n\x1b[2Jb\n'); // 'a\n\\x1b[2Jb\n'
 */
export function escapeLines(text: string): string {
  return text.replace(CONTROL_BUT_NEWLINE, escapeOne);
}
