import { timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { UsersRepository } from '../../users/users.repository';
import type { Principal } from '../principal';
import { CSRF_HEADER, SESSION_COOKIE, readCookie } from './session-cookies';
import { WebSessionRefresh } from './web-session-refresh';
import { type WebSession, WebSessionsRepository, sessionKeyId } from './web-sessions.repository';

/** Methods that change nothing: no CSRF token needed. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Resolves the browser's session cookie to a principal for `UserAuthGuard`. A change (any other
 * method) must carry the session's CSRF token in `x-weft-csrf`: another site can make the browser
 * send the cookie, but cannot read the token to send with it.
 */
@Injectable()
export class WebSessionAuth {
  constructor(
    private readonly sessions: WebSessionsRepository,
    private readonly users: UsersRepository,
    private readonly refresh: WebSessionRefresh,
  ) {}

  /** Undefined when the request has no session cookie; throws when it has one that does not hold. */
  async principalOf(req: Request): Promise<Principal | undefined> {
    const session = await this.sessionOf(req);
    if (!session) return undefined;
    if (!SAFE_METHODS.has(req.method) && !sameToken(req.headers[CSRF_HEADER], session.csrfToken)) {
      throw new AppError(ErrorCode.Forbidden, `Missing or wrong ${CSRF_HEADER} header: a signed-in page sends its session's CSRF token with every change`);
    }
    return { userId: session.userId, keyId: sessionKeyId(session), keyExpiresAt: session.expiresAt, webSession: true };
  }

  /** The live session the cookie names; a disabled user's sessions all end here. */
  async sessionOf(req: Request): Promise<WebSession | undefined> {
    const id = readCookie(req, SESSION_COOKIE);
    if (!id) return undefined;
    const session = await this.sessions.find(id);
    if (!session || Date.parse(session.expiresAt) <= Date.now()) throw new AppError(ErrorCode.Unauthorized, 'Your sign-in has ended; sign in again');
    const user = await this.users.find(session.userId);
    if (!user || user.disabled) {
      await this.sessions.destroyAllFor(session.userId);
      throw new AppError(user ? ErrorCode.Forbidden : ErrorCode.Unauthorized, user ? `User ${user.name} is disabled; ask your admin` : 'Your user no longer exists');
    }
    // Due a refresh at the provider: one it refuses ends the session here (and throws).
    await this.refresh.refreshIfDue(session);
    return session;
  }
}

export { sessionKeyId };

function sameToken(sent: string | string[] | undefined, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const [a, b] = [Buffer.from(sent), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}
