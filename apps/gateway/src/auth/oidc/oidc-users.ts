import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { newId } from '../../common/ids';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import { type User, type UserRole, UsersRepository } from '../../users/users.repository';
import type { OidcIdentity } from './oidc-admission';
import { groupLimitsKey, quotaClassOf } from './group-limits';
import { ModelAccess } from './model-access';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';
import { ssoProfileKey } from './sso-profiles';

/** Tries at a free user name (`ada`, `ada-2`, …) before giving up. */
const NAME_TRIES = 20;

/**
 * Weft users from the provider: found by issuer and subject, created on first sign-in (just in
 * time), their email, groups and (when WEFT_OIDC_ADMIN_GROUPS is set) role refreshed at each sign-in.
 */
@Injectable()
export class OidcUsers {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly users: UsersRepository,
    private readonly modelAccess: ModelAccess,
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
  ) {}

  async signIn(identity: OidcIdentity): Promise<User> {
    const role = this.roleOf(identity);
    // Claim the identity first, so two first sign-ins at once make one user.
    const candidate = newId('usr');
    const claimed = await this.redis.set(this.identityKey(identity), candidate, 'NX');
    const userId = claimed === 'OK' ? candidate : await this.redis.get(this.identityKey(identity));
    if (!userId) throw new Error('The OIDC identity vanished while it was read');
    let user = await this.users.find(userId);
    if (!user) user = await this.create(userId, identity, role ?? 'member');
    if (user.disabled) throw new AppError(ErrorCode.Forbidden, `Your Weft user ${user.name} is disabled; ask your admin`);
    if (role && role !== user.role) {
      // Refused only when it would demote the last admin while the bootstrap token is off: keep the role then.
      if ((await this.users.update(user.id, { role })) === 'ok') user = { ...user, role };
    }
    await this.applyGroupLimits(user.id, identity.groups);
    await this.modelAccess.apply(user.id, identity.groups);
    await this.redis.hset(this.profileKey(user.id), {
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email ?? '',
      groups: JSON.stringify(identity.groups),
      signedInAt: new Date().toISOString(),
      // The role the groups gave (empty while roles are managed in Weft): the listings show where a role came from.
      providerRole: role ?? '',
    });
    return user;
  }

  /** The user's email and groups as of their last sign-in; undefined for a user who never signed in through the provider. */
  async profile(userId: string): Promise<{ email: string | null; groups: string[] } | undefined> {
    const record = await this.redis.hgetall(this.profileKey(userId));
    if (!record.subject) return undefined;
    return { email: record.email || null, groups: JSON.parse(record.groups ?? '[]') as string[] };
  }

  private async create(userId: string, identity: OidcIdentity, role: UserRole): Promise<User> {
    const base = identity.displayName.slice(0, 90);
    for (let n = 1; n <= NAME_TRIES; n++) {
      const user = { id: userId, name: n === 1 ? base : `${base}-${n}`, createdAt: new Date().toISOString(), role };
      if (await this.users.create(user)) return { ...user, disabled: false };
    }
    throw new AppError(ErrorCode.Conflict, `No free user name near "${base}": ask your admin to rename a user`);
  }

  /** The quota class of the user's groups, replaced at each sign-in (gone when no group has one). */
  private async applyGroupLimits(userId: string, groups: string[]): Promise<void> {
    const limits = quotaClassOf(groups, this.settings?.groupLimits ?? {});
    const key = groupLimitsKey(this.keys, userId);
    const multi = this.redis.multi().del(key);
    if (Object.keys(limits).length > 0) multi.hset(key, Object.fromEntries(Object.entries(limits).map(([field, value]) => [field, String(value)])));
    await multi.exec();
  }

  /** Undefined while roles are managed in Weft (WEFT_OIDC_ADMIN_GROUPS empty). */
  private roleOf(identity: OidcIdentity): UserRole | undefined {
    const adminGroups = this.settings?.adminGroups ?? [];
    if (adminGroups.length === 0) return undefined;
    return identity.groups.some((group) => adminGroups.includes(group)) ? 'admin' : 'member';
  }

  private identityKey(identity: OidcIdentity): string {
    const digest = createHash('sha256').update(`${identity.issuer}\n${identity.subject}`).digest('base64url');
    return `${this.keys.prefix}oidc:identity:${digest}`;
  }

  private profileKey(userId: string): string {
    return ssoProfileKey(this.keys, userId);
  }
}
