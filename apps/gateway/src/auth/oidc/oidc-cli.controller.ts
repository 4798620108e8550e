import { Body, Controller, Inject, Query, Req, Res } from '@nestjs/common';
import { type CliSignInQuery, type CliSignInTokenBody, apiRoutes } from '@weft/contracts';
import type { Request, Response } from 'express';
import { Route } from '../../common/api-route.decorator';
import { OidcCliSignIn } from './oidc-cli-sign-in';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';
import { OidcSignIn } from './oidc-sign-in';
import { PENDING_TTL_MS } from './pending-sign-ins.repository';
import { PENDING_COOKIE, setCookie } from './session-cookies';

const CALLBACK_PATH = apiRoutes.oidcCallback.path;

/** `weft login` through a browser, for a provider without the device grant: the CLI opens `cli-login` and redeems the code its loopback receives. */
@Controller()
export class OidcCliController {
  constructor(
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
    private readonly signIn: OidcSignIn,
    private readonly cli: OidcCliSignIn,
  ) {}

  /** As the page's sign-in (the provider redirects to the same callback), remembering the CLI's loopback, challenge and state. */
  @Route(apiRoutes.cliSignIn)
  async login(@Query() query: CliSignInQuery, @Req() req: Request, @Res() res: Response): Promise<void> {
    const redirectUri = this.settings?.redirectUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}${CALLBACK_PATH}`;
    const { url, pendingId } = await this.signIn.start(redirectUri, { redirect: query.redirect, challenge: query.challenge, state: query.state });
    const secure = req.secure || (this.settings?.redirectUrl?.startsWith('https:') ?? false);
    setCookie(res, PENDING_COOKIE, pendingId, { secure, maxAgeMs: PENDING_TTL_MS, path: CALLBACK_PATH });
    res.redirect(302, url.href);
  }

  @Route(apiRoutes.cliSignInToken)
  token(@Body() body: CliSignInTokenBody) {
    return this.cli.redeem(body);
  }
}
