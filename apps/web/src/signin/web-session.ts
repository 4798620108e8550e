import { CSRF_HEADER_NAME, apiRoutes, webSessionSchema, type WebSessionAnswer } from '@weft/contracts';

/**
 * Signed in through the identity provider, the page holds no key: the HttpOnly session cookie
 * goes with every same-origin request, and changes carry the session's CSRF token, which lives
 * only in this module's memory (never in storage).
 */
let csrfToken: string | null = null;

/** Stands in `ApiClient`/`AccountApi` for the key when the browser session is the credential. */
export const SESSION_CREDENTIAL = '';

/** Headers a request authenticated by the session cookie needs. */
export function sessionHeaders(): Record<string, string> {
  return csrfToken ? { [CSRF_HEADER_NAME]: csrfToken } : {};
}

/** Whether the gateway offers SSO, and the browser's signed-in user; remembers the CSRF token. */
export async function loadWebSession(): Promise<WebSessionAnswer> {
  const response = await fetch(apiRoutes.webSession.path, { credentials: 'same-origin', signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`The gateway answered ${response.status} to ${apiRoutes.webSession.path}`);
  const session = webSessionSchema.parse(await response.json());
  csrfToken = session.csrfToken;
  return session;
}

/** Ends the session at the gateway (the cookie is cleared by its answer) and forgets the token. */
export async function signOutWebSession(): Promise<void> {
  try {
    await fetch(apiRoutes.logout.path, { method: 'POST', credentials: 'same-origin', headers: sessionHeaders(), signal: AbortSignal.timeout(30_000) });
  } finally {
    csrfToken = null;
  }
}

/** Where the "Sign in with SSO" button goes: the gateway redirects on to the provider. */
export const SSO_SIGN_IN_URL = apiRoutes.oidcLogin.path;
