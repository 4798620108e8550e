import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { CredentialWatch } from '../credential-watch';
import { admit } from './oidc-admission';
import { OidcProviderClient } from './oidc-provider-client';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';
import { OidcUsers } from './oidc-users';
import { type ProviderGrant, type WebSession, WebSessionsRepository, sessionKeyId } from './web-sessions.repository';

/** How long one refresh may hold a session's lock (the provider's answer included). */
const REFRESH_LOCK_MS = 30_000;

/** When to refresh next: when the access token expires, or after `maxSeconds`, whichever is sooner. */
export function grantOf(refreshToken: string, expiresIn: number | undefined, maxSeconds: number, now = Date.now()): ProviderGrant {
  const seconds = Math.max(1, Math.min(expiresIn ?? maxSeconds, maxSeconds));
  return { refreshToken, refreshAt: new Date(now + seconds * 1000).toISOString() };
}

/**
 * Keeps a browser session to what the provider still allows: when it is due, the refresh token is
 * used at the provider. Refused (the user disabled there, the grant revoked) or no longer admitted
 * by the gateway's settings: the session and its streams end. Otherwise the new ID token's groups
 * apply (role, quota class, model access), as at a sign-in.
 */
@Injectable()
export class WebSessionRefresh {
  constructor(
    private readonly provider: OidcProviderClient,
    private readonly sessions: WebSessionsRepository,
    private readonly users: OidcUsers,
    private readonly credentials: CredentialWatch,
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
  ) {}

  /** Throws 401 (refused by the provider) or 403 (no longer admitted) once the session has been ended. */
  async refreshIfDue(session: WebSession, now = Date.now()): Promise<void> {
    if (!this.settings || !session.refreshAt || Date.parse(session.refreshAt) > now) return;
    // Another request or replica is refreshing it: this one goes on with the session as it is.
    if (!(await this.sessions.lockRefresh(session.id, REFRESH_LOCK_MS))) return;
    try {
      const refreshToken = await this.sessions.refreshTokenOf(session.id);
      if (!refreshToken) return;
      const refreshed = await this.provider.refresh(refreshToken);
      if (refreshed.outcome === 'refused') {
        await this.end(session);
        throw new AppError(ErrorCode.Unauthorized, `Your identity provider ended your sign-in (${refreshed.reason}); sign in again`);
      }
      if (refreshed.claims) {
        const admission = admit(refreshed.claims, this.settings);
        if (!admission.admitted) {
          await this.end(session);
          throw new AppError(ErrorCode.Forbidden, admission.reason);
        }
        await this.users.signIn(admission.identity);
      }
      await this.sessions.refreshed(session.id, grantOf(refreshed.refreshToken, refreshed.expiresIn, this.settings.refreshSeconds));
    } finally {
      await this.sessions.unlockRefresh(session.id);
    }
  }

  /** The session goes, and its streams end on every replica. */
  private async end(session: WebSession): Promise<void> {
    await this.sessions.destroy(session);
    await this.credentials.announce({ keyId: sessionKeyId(session) });
  }
}
