import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, type CliSignInToken, type CliSignInTokenBody, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import { UsersRepository, type User } from '../../users/users.repository';
import type { CliLoopback } from './oidc-provider-client';
import { OwnKeys } from './own-keys';

/** The CLI redeems its code at once; a code not redeemed in this long is gone. */
const CODE_TTL_SECONDS = 120;

/**
 * `weft login`'s loopback sign-in, after the browser signed in at the provider: a one-time code
 * sent to the CLI's loopback redirect, worth the user's own key only with the PKCE verifier the
 * CLI kept (so a code seen by another local program, or in a browser's history, is worth nothing).
 */
@Injectable()
export class OidcCliSignIn {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly users: UsersRepository,
    private readonly ownKeys: OwnKeys,
  ) {}

  /** Where the browser goes once the user is signed in: the CLI's loopback, with the code and the CLI's state. */
  async handOver(user: User, cli: CliLoopback): Promise<string> {
    const code = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(code), JSON.stringify({ userId: user.id, challenge: cli.challenge }), 'EX', CODE_TTL_SECONDS);
    const redirect = new URL(cli.redirect);
    redirect.searchParams.set('code', code);
    redirect.searchParams.set('state', cli.state);
    return redirect.href;
  }

  async redeem(body: CliSignInTokenBody): Promise<CliSignInToken> {
    const stored = await this.redis.getdel(this.key(body.code));
    if (stored === null) throw new AppError(ErrorCode.Unauthorized, 'This sign-in code has expired or was already used; run weft login again');
    const { userId, challenge } = JSON.parse(stored) as { userId: string; challenge: string };
    if (!sameText(createHash('sha256').update(body.codeVerifier).digest('base64url'), challenge)) {
      throw new AppError(ErrorCode.Unauthorized, 'The code verifier does not match the sign-in this code came from; run weft login again');
    }
    const user = await this.users.find(userId);
    if (!user) throw new AppError(ErrorCode.Unauthorized, 'Your user no longer exists');
    if (user.disabled) throw new AppError(ErrorCode.Forbidden, `Your Weft user ${user.name} is disabled; ask your admin`);
    return this.ownKeys.mint(user, body.keyName, 'oidc-loopback');
  }

  private key(code: string): string {
    return `${this.keys.prefix}oidc:cli-code:${createHash('sha256').update(code).digest('base64url')}`;
  }
}

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}
