import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { User } from '../../users/users.repository';
import { admit } from './oidc-admission';
import { OidcCliSignIn } from './oidc-cli-sign-in';
import { type CliLoopback, OidcProviderClient } from './oidc-provider-client';
import { OidcUsers } from './oidc-users';
import { PendingSignInsRepository } from './pending-sign-ins.repository';
import { grantOf } from './web-session-refresh';
import { type WebSession, WebSessionsRepository } from './web-sessions.repository';

/** A browser's session, or, for `weft login`'s loopback sign-in, where to send the browser with the CLI's code. */
export type SignInOutcome = { user: User; session: WebSession; cliRedirect: undefined } | { user: User; session?: undefined; cliRedirect: string };

/** The browser sign-in, from the redirect out to a session: the controller only moves cookies. */
@Injectable()
export class OidcSignIn {
  constructor(
    private readonly provider: OidcProviderClient,
    private readonly pending: PendingSignInsRepository,
    private readonly users: OidcUsers,
    private readonly sessions: WebSessionsRepository,
    private readonly cli: OidcCliSignIn,
  ) {}

  /** The provider's authorization URL, and the id of the pending sign-in for the browser's cookie. */
  async start(redirectUri: string, cli?: CliLoopback): Promise<{ url: URL; pendingId: string }> {
    const { url, pending } = await this.provider.authorizationUrl(redirectUri, cli);
    const pendingId = randomBytes(24).toString('base64url');
    await this.pending.save(pendingId, pending);
    return { url, pendingId };
  }

  /**
   * Verifies the callback against the sign-in this browser started (state, nonce, PKCE, the ID
   * token's signature and expiry), admits the user and opens a session. 401 when a check fails,
   * 403 when the settings turn the user away.
   */
  async finish(callbackQuery: string, pendingId: string | undefined): Promise<SignInOutcome> {
    const pending = pendingId ? await this.pending.take(pendingId) : undefined;
    if (!pending) throw new AppError(ErrorCode.Unauthorized, 'This sign-in was not started in this browser, was already used, or took over ten minutes; start again');
    // The URL the provider redirected to, as registered: behind a proxy the request's own host may differ.
    const callbackUrl = new URL(pending.redirectUri);
    callbackUrl.search = callbackQuery;
    const providerError = callbackUrl.searchParams.get('error');
    if (providerError) {
      throw new AppError(ErrorCode.Unauthorized, `The identity provider refused the sign-in: ${providerError}${describeParam(callbackUrl, 'error_description')}`);
    }
    const signedIn = await this.provider.finish(callbackUrl, pending);
    const settings = this.provider.required();
    const admission = admit(signedIn.claims, settings);
    if (!admission.admitted) throw new AppError(ErrorCode.Forbidden, admission.reason);
    const user = await this.users.signIn(admission.identity);
    // `weft login` in this browser: the CLI gets a code for a key, the browser no session.
    if (pending.cli) return { user, cliRedirect: await this.cli.handOver(user, pending.cli) };
    // Without a refresh token the session lasts its hours unchecked (docs/sso.md says which providers need `offline_access`).
    const grant = signedIn.refreshToken ? grantOf(signedIn.refreshToken, signedIn.expiresIn, settings.refreshSeconds) : undefined;
    const session = await this.sessions.create(user.id, settings.sessionSeconds, grant);
    return { user, session, cliRedirect: undefined };
  }
}

function describeParam(url: URL, name: string): string {
  const value = url.searchParams.get(name);
  return value ? ` (${value})` : '';
}
