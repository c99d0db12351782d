/**
 * Tokens of a BVH file quoted in error and warning messages, cut to a short excerpt.
 *
 * @module
 */

/** @internal Longest excerpt of a token that a message quotes: a longer token is cut, with its length. */
export const QUOTE_LIMIT = 40;

/**
 * A token of the file quoted for a message: `'Wrotation'`, or for a token longer than {@link QUOTE_LIMIT}
 * characters its first 40 and its length (`'\0\0…' (8388608 characters)`), so that a bad token of megabytes
 * makes a message of a line, not of megabytes. Control characters are shown as escapes.
 *
 * @internal
 */
export function quoteToken(text: string): string {
  const head = text.length > QUOTE_LIMIT ? text.slice(0, QUOTE_LIMIT) : text;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
  const shown = head.replace(/[\u0000-\u001f\u007f]/g, (c) =>
    c === '\0' ? '\\0' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
  return text.length > QUOTE_LIMIT ? `'${shown}…' (${text.length} characters)` : `'${shown}'`;
}
