import { parseCookie } from 'cookie';
import type { Request, Response } from 'express';

/** The browser session's cookie: HttpOnly, so the page's scripts never see it. */
export const SESSION_COOKIE = 'weft_session';
/** Binds a sign-in in progress to the browser that started it (the callback's `state` must match it). */
export const PENDING_COOKIE = 'weft_signin';
/** The header a signed-in page sends with every change, carrying the session's CSRF token. */
export const CSRF_HEADER = 'x-weft-csrf';

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const value = parseCookie(header)[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * HttpOnly, SameSite=Lax (sent on the provider's redirect back, not on other sites' posts), and
 * Secure whenever the page is served over TLS (directly, or behind a proxy that says so).
 */
export function setCookie(res: Response, name: string, value: string, options: { secure: boolean; maxAgeMs: number; path?: string }): void {
  res.cookie(name, value, { httpOnly: true, sameSite: 'lax', secure: options.secure, maxAge: options.maxAgeMs, path: options.path ?? '/' });
}

export function clearCookie(res: Response, name: string, options: { secure: boolean; path?: string }): void {
  res.clearCookie(name, { httpOnly: true, sameSite: 'lax', secure: options.secure, path: options.path ?? '/' });
}
