/** Longest name an error message shows; longer ones are cut and their length given. */
export const DISPLAY_NAME_MAX_CHARS = 200;

/**
 * A name from an upload or a tool call as an error message may show it: control characters
 * escaped (`\0`, `\n`, `\x1b`), so nothing is hidden or cut, and at most `max` characters.
 */
export function displayName(name: string, max = DISPLAY_NAME_MAX_CHARS): string {
  const escaped = escapeControls(name);
  if (escaped.length <= max) return escaped;
  return `${escaped.slice(0, max)}… (${name.length} characters)`;
}

const NAMED_ESCAPES = new Map([
  ['\0', '\\0'],
  ['\n', '\\n'],
  ['\t', '\\t'],
  ['\r', '\\r'],
]);

function escapeControls(name: string): string {
  let escaped = '';
  for (const char of name) {
    const code = char.charCodeAt(0);
    const control = code < 0x20 || code === 0x7f;
    escaped += control ? (NAMED_ESCAPES.get(char) ?? `\\x${code.toString(16).padStart(2, '0')}`) : char;
  }
  return escaped;
}
