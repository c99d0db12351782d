// Resource URIs of untrusted models as file names (no node:* here, so the output planner loads it cheaply).

/**
 * A resource URI of a model as a relative file name (`/`-separated, percent-escapes decoded, `.`
 * segments dropped), or why it names no such file: a URL with a scheme, an absolute path, a `..` segment
 * (raw or escaped as `..%2F`), a backslash, a control character, an escape that does not decode. With
 * `forWrite`, also a hidden name (a segment that starts with `.`, such as `.bashrc`).
 *
 * @internal
 */
export function resourceName(uri: string, forWrite = false): { name: string } | { reason: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    return { reason: 'its percent-escapes do not decode' };
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(decoded)) return { reason: 'it holds a control character' };
  if (/^[a-z][a-z0-9+.-]*:/i.test(decoded))
    return { reason: 'it is a URL or a drive path, not a relative file name' };
  if (decoded.startsWith('/')) return { reason: 'it is an absolute path' };
  if (decoded.includes('\\')) return { reason: 'it holds a backslash' };
  const segments = decoded.split('/').filter((s) => s !== '.');
  if (segments.includes('..')) return { reason: "it leaves the model's folder ('..')" };
  if (segments.length === 0 || segments.includes('')) return { reason: 'it is not a file name' };
  if (forWrite && segments.some((s) => s.startsWith('.')))
    return { reason: 'it is a hidden name (starts with a dot)' };
  return { name: segments.join('/') };
}
