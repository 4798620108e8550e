import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { User } from '../../users/users.repository';
import { admit } from './oidc-admission';
import { OidcProviderClient } from './oidc-provider-client';
import { OidcUsers } from './oidc-users';
import { PendingSignInsRepository } from './pending-sign-ins.repository';
import { type WebSession, WebSessionsRepository } from './web-sessions.repository';

/** The browser sign-in, from the redirect out to a session: the controller only moves cookies. */
@Injectable()
export class OidcSignIn {
  constructor(
    private readonly provider: OidcProviderClient,
    private readonly pending: PendingSignInsRepository,
    private readonly users: OidcUsers,
    private readonly sessions: WebSessionsRepository,
  ) {}

  /** The provider's authorization URL, and the id of the pending sign-in for the browser's cookie. */
  async start(redirectUri: string): Promise<{ url: URL; pendingId: string }> {
    const { url, pending } = await this.provider.authorizationUrl(redirectUri);
    const pendingId = randomBytes(24).toString('base64url');
    await this.pending.save(pendingId, pending);
    return { url, pendingId };
  }

  /**
   * Verifies the callback against the sign-in this browser started (state, nonce, PKCE, the ID
   * token's signature and expiry), admits the user and opens a session. 401 when a check fails,
   * 403 when the settings turn the user away.
   */
  async finish(callbackQuery: string, pendingId: string | undefined): Promise<{ user: User; session: WebSession }> {
    const pending = pendingId ? await this.pending.take(pendingId) : undefined;
    if (!pending) throw new AppError(ErrorCode.Unauthorized, 'This sign-in was not started in this browser, was already used, or took over ten minutes; start again');
    // The URL the provider redirected to, as registered: behind a proxy the request's own host may differ.
    const callbackUrl = new URL(pending.redirectUri);
    callbackUrl.search = callbackQuery;
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError) {
      throw new AppError(ErrorCode.Unauthorized, `The identity provider refused the sign-in: ${providerError}${describeParam(callbackUrl, 'error_description')}`);
    }
    const claims = await this.provider.finish(callbackUrl, pending);
    const admission = admit(claims, this.provider.required());
    if (!admission.admitted) throw new AppError(ErrorCode.Forbidden, admission.reason);
    const user = await this.users.signIn(admission.identity);
    const session = await this.sessions.create(user.id, this.provider.required().sessionSeconds);
    return { user, session };
  }
}

function describeParam(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  return value ? ` (${value})` : '';
}
