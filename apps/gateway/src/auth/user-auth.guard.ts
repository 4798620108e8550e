import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { QuotaService } from '../accounting/quota.service';
import { UsersRepository } from '../users/users.repository';
import { ApiKeysRepository } from './api-keys.repository';
import { bearerToken, hashApiKey } from './key-hash';
import { WebSessionAuth } from './oidc/web-session-auth';
import { setPrincipal } from './principal';

/**
 * Resolves `Authorization: Bearer <key>` (else a signed-in browser's session cookie) to a principal, or fails with 401. `x-api-key: <key>`
 * is read too: Anthropic's clients (the SDK, Claude Code) send the key that way. Every request
 * counts against the user's requests per minute (429 `QUOTA.EXCEEDED` past it).
 */
@Injectable()
export class UserAuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly quotas: QuotaService,
    private readonly webSessions: WebSessionAuth,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const apiKeyHeader = req.headers['x-api-key'];
    const key = bearerToken(req.headers.authorization) ?? (typeof apiKeyHeader === 'string' && apiKeyHeader !== '' ? apiKeyHeader : undefined);
    // No key: a browser signed in through the identity provider holds a session cookie instead.
    const webPrincipal = key ? undefined : await this.webSessions.principalOf(req);
    if (webPrincipal) {
      setPrincipal(req, webPrincipal);
      await this.quotas.countRequest(webPrincipal.userId);
      return true;
    }
    if (!key) throw new AppError(ErrorCode.Unauthorized, 'Missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)');
    const hash = hashApiKey(key);
    const stored = await this.apiKeys.findByHash(hash);
    const user = stored && (await this.users.find(stored.userId));
    if (!stored || !user) throw new AppError(ErrorCode.Unauthorized, 'Invalid API key');
    if (stored.expiresAt && Date.parse(stored.expiresAt) <= Date.now()) {
      throw new AppError(ErrorCode.Unauthorized, `API key ${stored.prefix}… expired at ${stored.expiresAt}; ask your admin for a new one`);
    }
    if (user.disabled) throw new AppError(ErrorCode.Forbidden, `User ${user.name} is disabled; ask your admin`);
    setPrincipal(req, { userId: stored.userId, keyId: stored.keyId, ...(stored.expiresAt ? { keyExpiresAt: stored.expiresAt } : {}) });
    await this.apiKeys.touch(hash, stored.keyId);
    await this.quotas.countRequest(stored.userId);
    return true;
  }
}
