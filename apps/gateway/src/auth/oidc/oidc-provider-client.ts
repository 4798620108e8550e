import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import * as oidc from 'openid-client';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';

/** What a sign-in needs to remember between the redirect out and the callback. */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
  /** Set for `weft login`'s browser sign-in: where the CLI waits, and its PKCE challenge and state. */
  cli?: CliLoopback;
}

/** The CLI's side of a loopback sign-in (`GET /v1/auth/oidc/cli-login`). */
export interface CliLoopback {
  redirect: string;
  challenge: string;
  state: string;
}

/** The verified ID token's claims (signature, issuer, audience, expiry, nonce all checked). */
export type IdTokenClaims = Record<string, unknown> & { iss: string; sub: string };

/** A finished sign-in: the verified claims, and what a later refresh needs (when the provider gave a refresh token). */
export interface SignedIn {
  claims: IdTokenClaims;
  refreshToken: string | undefined;
  /** Seconds until the access token expires, when the provider said. */
  expiresIn: number | undefined;
}

export type Refreshed =
  | { outcome: 'ok'; claims: IdTokenClaims | undefined; refreshToken: string; expiresIn: number | undefined }
  | { outcome: 'refused'; reason: string };

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** How long discovery of the provider may take. */
const DISCOVERY_TIMEOUT_SECONDS = 10;

/**
 * The provider, through openid-client: discovery (once, on first use, so the gateway boots while
 * the provider is down), the authorization URL with PKCE, state and nonce, and the code exchange,
 * which verifies the ID token against the provider's published keys.
 */
@Injectable()
export class OidcProviderClient {
  private discovered?: Promise<oidc.Configuration>;

  constructor(@Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined) {}

  get enabled(): boolean {
    return this.settings !== undefined;
  }

  async authorizationUrl(redirectUri: string, cli?: CliLoopback): Promise<{ url: URL; pending: PendingSignIn }> {
    const [config, settings] = [await this.configuration(), this.required()];
    const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier(), redirectUri, ...(cli ? { cli } : {}) };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: settings.scopes,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url, pending };
  }

  /** Exchanges the callback's code; any failed check is a 401 naming it. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedIn> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      }, { redirect_uri: pending.redirectUri });
      const claims = tokens.claims();
      if (!claims) throw new AppError(ErrorCode.Unauthorized, 'The provider returned no ID token');
      return { claims: claims as IdTokenClaims, refreshToken: tokens.refresh_token, expiresIn: tokens.expiresIn() };
    } catch (error) {
      if (error instanceof AppError) throw error;
      throw new AppError(ErrorCode.Unauthorized, `Sign-in failed: ${describe(error)}`);
    }
  }

  /**
   * Refreshes a sign-in at the provider: `refused` when the provider turns the refresh token
   * down (the user disabled, the grant revoked); an outage throws, so the session is kept.
   */
  async refresh(refreshToken: string): Promise<Refreshed> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.refreshTokenGrant(config, refreshToken);
      return { outcome: 'ok', claims: tokens.claims() as IdTokenClaims | undefined, refreshToken: tokens.refresh_token ?? refreshToken, expiresIn: tokens.expiresIn() };
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError) return { outcome: 'refused', reason: describe(error) };
      throw new AppError(ErrorCode.Internal, `The identity provider ${this.required().issuer.href} could not refresh a sign-in: ${describe(error)}`);
    }
  }

  /** Starts the device authorization grant (`weft login`); 409 when the provider does not offer it. */
  async startDevice(): Promise<oidc.DeviceAuthorizationResponse> {
    const config = await this.configuration();
    if (!config.serverMetadata().device_authorization_endpoint) {
      // `deviceGrant: false` tells `weft login` to sign in through a browser on a loopback redirect instead.
      throw new AppError(ErrorCode.Conflict, `The identity provider ${this.required().issuer.href} offers no device authorization grant: run weft login with --sign-in browser`, { deviceGrant: false });
    }
    try {
      return await oidc.initiateDeviceAuthorization(config, { scope: this.required().scopes });
    } catch (error) {
      throw new AppError(ErrorCode.Unauthorized, `The identity provider refused the device sign-in: ${describe(error)}`);
    }
  }

  /** One look at a device sign-in: the verified ID token's claims, or that the user has not confirmed yet. */
  async pollDevice(deviceCode: string): Promise<IdTokenClaims | 'pending' | 'slow_down'> {
    const config = await this.configuration();
    try {
      const tokens = await oidc.genericGrantRequest(config, DEVICE_CODE_GRANT, { device_code: deviceCode });
      const claims = tokens.claims();
      if (!claims) throw new AppError(ErrorCode.Unauthorized, 'The provider returned no ID token (is `openid` among WEFT_OIDC_SCOPES?)');
      return claims as IdTokenClaims;
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError && (error.error === 'authorization_pending' || error.error === 'slow_down')) {
        return error.error === 'slow_down' ? 'slow_down' : 'pending';
      }
      if (error instanceof AppError) throw error;
      throw new AppError(ErrorCode.Unauthorized, `Sign-in failed: ${describe(error)}`);
    }
  }

  required(): OidcSettings {
    if (!this.settings) throw new AppError(ErrorCode.NotFound, 'Sign-in through an identity provider is not configured on this gateway (WEFT_OIDC_ISSUER is unset)');
    return this.settings;
  }

  private configuration(): Promise<oidc.Configuration> {
    const settings = this.required();
    this.discovered ??= oidc
      // HTTP Basic: the method every provider must support (RFC 6749); none for a public client.
      .discovery(settings.issuer, settings.clientId, undefined, settings.clientSecret ? oidc.ClientSecretBasic(settings.clientSecret) : oidc.None(), {
        timeout: DISCOVERY_TIMEOUT_SECONDS,
        // The ID token's signature is checked against the provider's published keys too, not
        // only trusted for having come over TLS (which openid-client allows by default).
        execute: settings.allowHttp ? [oidc.enableNonRepudiationChecks, oidc.allowInsecureRequests] : [oidc.enableNonRepudiationChecks],
      })
      .catch((error: unknown) => {
        // Try again on the next sign-in rather than remember an outage.
        this.discovered = undefined;
        throw new AppError(ErrorCode.Internal, `The identity provider ${settings.issuer.href} could not be reached: ${describe(error)}`);
      });
    return this.discovered;
  }
}

/**
 * openid-client's errors carry a code (`OAUTH_JWT_TIMESTAMP_CHECK_FAILED`), a message, and often
 * the specific check in `cause` (`unexpected "state" response parameter value`, the claim name).
 */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const cause = error.cause;
  const detail = cause instanceof Error ? `: ${cause.message}` : describeCause(cause);
  return `${error.message}${detail}${typeof code === 'string' ? ` (${code})` : ''}`;
}

function describeCause(cause: unknown): string {
  if (typeof cause !== 'object' || cause === null) return '';
  const { claim, parameter, error: oauthError, error_description: description } = cause as Record<string, unknown>;
  const parts = [claim && `claim ${String(claim)}`, parameter && `parameter ${String(parameter)}`, oauthError && String(oauthError), description && String(description)].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}
