import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { QuotaService } from '../accounting/quota.service';
import { UsersRepository } from '../users/users.repository';
import { ApiKeysRepository } from './api-keys.repository';
import { bearerToken, hashApiKey } from './key-hash';
import { setPrincipal } from './principal';

/**
 * Resolves `Authorization: Bearer <key>` to a principal, or fails with 401. `x-api-key: <key>`
 * is read too: Anthropic's clients (the SDK, Claude Code) send the key that way. Every request
 * counts against the user's requests per minute (429 `QUOTA.EXCEEDED` past it).
 */
@Injectable()
export class UserAuthGuard implements CanActivate {
  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly users: UsersRepository,
    private readonly quotas: QuotaService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const apiKeyHeader = req.headers['x-api-key'];
    const key = bearerToken(req.headers.authorization) ?? (typeof apiKeyHeader === 'string' && apiKeyHeader !== '' ? apiKeyHeader : undefined);
    if (!key) throw new AppError(ErrorCode.Unauthorized, 'Missing API key: send Authorization: Bearer <key> (or x-api-key: <key>)');
    const stored = await this.apiKeys.findByHash(hashApiKey(key));
    if (!stored || !(await this.users.exists(stored.userId))) {
      throw new AppError(ErrorCode.Unauthorized, 'Invalid API key');
    }
    setPrincipal(req, { userId: stored.userId, keyId: stored.keyId });
    await this.quotas.countRequest(stored.userId);
    return true;
  }
}
