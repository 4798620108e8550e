import { Body, Controller, Inject, Req, Res } from '@nestjs/common';
import { AppError, type DeviceSignInPollBody, ErrorCode, apiRoutes } from '@weft/contracts';
import { Route } from '../../common/api-route.decorator';
import type { Request, Response } from 'express';
import { UsersRepository } from '../../users/users.repository';
import { CredentialWatch } from '../credential-watch';
import { OidcDeviceSignIn } from './oidc-device-sign-in';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';
import { OidcSignIn } from './oidc-sign-in';
import { PENDING_TTL_MS } from './pending-sign-ins.repository';
import { PENDING_COOKIE, SESSION_COOKIE, clearCookie, readCookie, setCookie } from './session-cookies';
import { signInRefusedPage } from './sign-in-page';
import { WebSessionAuth, sessionKeyId } from './web-session-auth';
import { WebSessionsRepository } from './web-sessions.repository';

const CALLBACK_PATH = apiRoutes.oidcCallback.path;

/** The browser's sign-in through the identity provider, its session, and sign-out. */
@Controller()
export class OidcController {
  constructor(
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
    private readonly signIn: OidcSignIn,
    private readonly webAuth: WebSessionAuth,
    private readonly sessions: WebSessionsRepository,
    private readonly users: UsersRepository,
    private readonly device: OidcDeviceSignIn,
    private readonly credentials: CredentialWatch,
  ) {}

  /** What the page needs before it shows anything: whether SSO is on, and who is signed in (with the CSRF token to send). */
  @Route(apiRoutes.webSession)
  async session(@Req() req: Request) {
    const session = await this.webAuth.sessionOf(req).catch(() => undefined);
    const user = session && (await this.users.find(session.userId));
    return {
      oidc: this.settings !== undefined,
      user: user ? { id: user.id, name: user.name, role: user.role } : null,
      csrfToken: session?.csrfToken ?? null,
      expiresAt: session?.expiresAt ?? null,
    };
  }

  @Route(apiRoutes.oidcLogin)
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    const redirectUri = this.settings?.redirectUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}${CALLBACK_PATH}`;
    const { url, pendingId } = await this.signIn.start(redirectUri);
    setCookie(res, PENDING_COOKIE, pendingId, { secure: this.secure(req), maxAgeMs: PENDING_TTL_MS, path: CALLBACK_PATH });
    res.redirect(302, url.href);
  }

  /** Errors here are a page, not JSON: the browser arrives by the provider's redirect. */
  @Route(apiRoutes.oidcCallback)
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (!this.settings) throw new AppError(ErrorCode.NotFound, 'Sign-in through an identity provider is not configured on this gateway (WEFT_OIDC_ISSUER is unset)');
    const secure = this.secure(req);
    clearCookie(res, PENDING_COOKIE, { secure, path: CALLBACK_PATH });
    try {
      const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const outcome = await this.signIn.finish(search, readCookie(req, PENDING_COOKIE));
      // `weft login`'s browser sign-in: back to the CLI's loopback, with no session here.
      if (outcome.cliRedirect !== undefined) return res.redirect(302, outcome.cliRedirect);
      setCookie(res, SESSION_COOKIE, outcome.session.id, { secure, maxAgeMs: Date.parse(outcome.session.expiresAt) - Date.now() });
      res.redirect(302, '/');
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== ErrorCode.Unauthorized && error.code !== ErrorCode.Forbidden)) throw error;
      const refused = error.code === ErrorCode.Forbidden;
      res.status(refused ? 403 : 401).type('html').send(signInRefusedPage(refused, error.message));
    }
  }

  @Route(apiRoutes.deviceSignIn)
  startDevice() {
    return this.device.start();
  }

  @Route(apiRoutes.deviceSignInPoll)
  pollDevice(@Body() body: DeviceSignInPollBody) {
    return this.device.poll(body.handle, body.keyName);
  }

  /** Ends this browser's session (it needs the CSRF token like any change). */
  @Route(apiRoutes.logout)
  async logout(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<void> {
    const session = await this.webAuth.sessionOf(req);
    if (!session) throw new AppError(ErrorCode.Unauthorized, 'Not signed in');
    await this.webAuth.principalOf(req);
    await this.sessions.destroy(session);
    // Streams opened with this session end at once, on every replica.
    await this.credentials.announce({ keyId: sessionKeyId(session) });
    clearCookie(res, SESSION_COOKIE, { secure: this.secure(req) });
  }

  private secure(req: Request): boolean {
    return req.secure || (this.settings?.redirectUrl?.startsWith('https:') ?? false);
  }
}
