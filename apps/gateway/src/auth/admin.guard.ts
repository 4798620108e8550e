import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { UsersRepository } from '../users/users.repository';
import { setAdminActor } from './admin-actor';
import { adminKeyRefusal, checkBootstrapToken, retiredTokenError } from './admin-credential';
import { ApiKeysRepository } from './api-keys.repository';
import { BootstrapTokensRepository } from './bootstrap-tokens.repository';
import { bearerToken, hashApiKey } from './key-hash';
import { WebSessionAuth } from './oidc/web-session-auth';

/**
 * `/v1/admin/*` and `/metrics`: the bearer token must be the bootstrap token in effect
 * (WEFT_ADMIN_TOKEN until rotated or turned off) or the API key of an enabled admin user. A
 * member's key gets 403 `AUTH.ADMIN_REQUIRED`. Admin requests do not count against quotas.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    private readonly bootstrap: BootstrapTokensRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly webSessions: WebSessionAuth,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const token = bearerToken(req.headers.authorization);
    // An admin signed in through the identity provider uses the Admin page with their session cookie.
    const web = token ? undefined : await this.webSessions.principalOf(req);
    const webUser = web && (await this.users.find(web.userId));
    if (web && webUser) {
      if (webUser.role !== 'admin') throw new AppError(ErrorCode.AdminRequired, `User ${webUser.name} is not an admin`);
      setAdminActor(req, { kind: 'user', userId: webUser.id, keyId: web.keyId });
      return true;
    }
    if (!token) throw new AppError(ErrorCode.Unauthorized, 'Missing admin token: send Authorization: Bearer <token>');
    const state = await this.bootstrap.state();
    const bootstrap = checkBootstrapToken(token, state, this.config.WEFT_ADMIN_TOKEN);
    if (bootstrap === 'valid') {
      setAdminActor(req, { kind: 'bootstrap' });
      return true;
    }
    if (bootstrap === 'retired') throw retiredTokenError(state);
    const hash = hashApiKey(token);
    const key = await this.apiKeys.findByHash(hash);
    const user = key && (await this.users.find(key.userId));
    if (!key || !user) throw new AppError(ErrorCode.Unauthorized, 'Invalid admin token');
    const refusal = adminKeyRefusal({ prefix: key.prefix, expiresAt: key.expiresAt, userName: user.name, role: user.role, disabled: user.disabled });
    if (refusal) throw refusal;
    setAdminActor(req, { kind: 'user', userId: user.id, keyId: key.keyId });
    await this.apiKeys.touch(hash, key.keyId);
    return true;
  }
}
