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
import { WebSessionsRepository } from './web-sessions.repository';

/** Tries at a free user name (`ada`, `ada-2`, …) before giving up. */
const NAME_TRIES = 20;

/**
 * Points the identity at a new user id unless another sign-in already did; answers the id it
 * points at. KEYS: identity. ARGV: the deleted user's id, the new id.
 */
const REPLACE_ID_LUA = `
local current = redis.call('GET', KEYS[1])
if current == false or current == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2]) return ARGV[2] end
return current
`;

/** Unlinks the identity from a user only while it still points at them. KEYS: identity. ARGV: user id. */
const UNLINK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Weft users from the provider: found by issuer and subject, created on first sign-in (just in
 * time), their email, groups and (when WEFT_OIDC_ADMIN_GROUPS is set) role refreshed at each sign-in.
 * A deleted user's identity is unlinked (`forget`): signing in again makes a new user with a new id.
 */
@Injectable()
export class OidcUsers {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly users: UsersRepository,
    private readonly modelAccess: ModelAccess,
    private readonly webSessions: WebSessionsRepository,
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
  ) {}

  async signIn(identity: OidcIdentity): Promise<User> {
    const role = this.roleOf(identity);
    // Claim the identity first, so two first sign-ins at once make one user.
    const candidate = newId('usr');
    const claimed = await this.redis.set(this.identityKey(identity), candidate, 'NX');
    let userId = claimed === 'OK' ? candidate : await this.redis.get(this.identityKey(identity));
    if (!userId) throw new Error('The OIDC identity vanished while it was read');
    let user = await this.users.find(userId);
    if (!user && (await this.wasDeleted(userId))) {
      const deletedId = userId;
      userId = String(await this.redis.eval(REPLACE_ID_LUA, 1, this.identityKey(identity), deletedId, candidate));
      await this.forget(deletedId);
      user = await this.users.find(userId);
    }
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

  /**
   * Unlinks a deleted user from their identity at the provider and drops what their sign-ins
   * stored: profile, quota class, model rules, browser sessions.
   */
  async forget(userId: string): Promise<void> {
    const profile = await this.redis.hgetall(this.profileKey(userId));
    if (profile.issuer !== undefined && profile.subject !== undefined) {
      await this.redis.eval(UNLINK_LUA, 1, this.identityKey({ issuer: profile.issuer, subject: profile.subject }), userId);
    }
    await this.webSessions.destroyAllFor(userId);
    await this.modelAccess.forget(userId);
    await this.redis.del(this.profileKey(userId), groupLimitsKey(this.keys, userId));
  }

  /**
   * An identity that points at a missing user whose profile is still there: deleted before
   * deletions unlinked identities. (The profile is written after the user, so a missing user
   * without one is a first sign-in still under way.)
   */
  private async wasDeleted(userId: string): Promise<boolean> {
    return (await this.redis.hexists(this.profileKey(userId), 'subject')) === 1;
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

  private identityKey(identity: Pick<OidcIdentity, 'issuer' | 'subject'>): string {
    const digest = createHash('sha256').update(`${identity.issuer}\n${identity.subject}`).digest('base64url');
    return `${this.keys.prefix}oidc:identity:${digest}`;
  }

  private profileKey(userId: string): string {
    return ssoProfileKey(this.keys, userId);
  }
}
