/** What a secret's value becomes in a logged URL. */
export const REDACTED = '[REDACTED]';

/** Query parameters named like a credential: `key`, `api_key`, `apiKey`, `access_token`, `x-api-key`, `password`… */
const SECRET_PARAM = /(key|token|secret|passw(or)?d|pwd|auth(orization)?|credentials?|signature|sig)$/i;
/** A Weft API key, whatever the parameter is called (or with none: `?weft_…`). */
const API_KEY_VALUE = /^weft_/i;

/**
 * A request URL fit for a log line: the value of every query parameter that is named like a
 * credential or holds an API key is replaced with `[REDACTED]`. Clients sometimes put keys in
 * query strings; the gateway refuses them, but the refused request is logged all the same.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const end = url.indexOf('#', query);
  const search = url.slice(query + 1, end === -1 ? undefined : end);
  const redacted = search
    .split('&')
    .map(redactPair)
    .join('&');
  // A fragment is never sent by a client; drop it rather than reason about what it holds.
  return `${url.slice(0, query)}?${redacted}`;
}

function redactPair(pair: string): string {
  const equals = pair.indexOf('=');
  const name = decodeLeniently(equals === -1 ? pair : pair.slice(0, equals)).trim();
  const value = equals === -1 ? '' : decodeLeniently(pair.slice(equals + 1));
  if (equals === -1) return API_KEY_VALUE.test(name) ? REDACTED : pair;
  if (SECRET_PARAM.test(name) || API_KEY_VALUE.test(value)) return `${pair.slice(0, equals)}=${REDACTED}`;
  return pair;
}

function decodeLeniently(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    // A malformed %-escape: judge the text as it came.
    return text;
  }
}
