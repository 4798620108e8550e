import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { AdminActor } from '../auth/admin-actor';
import { AdminAudit } from '../auth/admin-audit';
import { ApiKeysRepository, type StoredApiKey } from '../auth/api-keys.repository';
import { generateApiKey, hashApiKey } from '../auth/key-hash';
import type { Principal } from '../auth/principal';
import { TurnCancellation } from '../turns/turn-cancellation';
import { newId } from '../common/ids';
import { SessionsRepository } from '../sessions/sessions.repository';
import { type DeletedUser, UserDeletion } from './user-deletion';
import type { CreateKeyBody, CreateUserBody, SsoProfile, UpdateUserBody } from '@weft/contracts';
import { SsoProfiles } from '../auth/oidc/sso-profiles';
import { type User, type UserRole, UsersRepository } from './users.repository';

/** How much of a key a listing shows: `weft_` and seven characters. */
const SHOWN_PREFIX = 12;

export interface KeyView {
  id: string;
  name: string | null;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export type AdminUserView = User & { keys: KeyView[]; sso: SsoProfile | null };

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly apiKeys: ApiKeysRepository,
    private readonly sessions: SessionsRepository,
    private readonly cancellation: TurnCancellation,
    private readonly deletion: UserDeletion,
    private readonly audit: AdminAudit,
    private readonly ssoProfiles: SsoProfiles,
  ) {}

  async create(actor: AdminActor, body: CreateUserBody): Promise<{ id: string; name: string; role: UserRole }> {
    const user = { id: newId('usr'), name: body.name, createdAt: new Date().toISOString(), role: body.role };
    if (!(await this.users.create(user))) throw new AppError(ErrorCode.Conflict, `A user named "${body.name}" already exists`, { name: body.name });
    await this.audit.record(actor, 'user.created', user.id, { name: user.name, role: user.role });
    return { id: user.id, name: user.name, role: user.role };
  }

  async list(): Promise<AdminUserView[]> {
    return Promise.all((await this.users.list()).map((user) => this.view(user)));
  }

  async get(userId: string): Promise<AdminUserView> {
    return this.view(await this.found(userId));
  }

  /** The user with their keys and what the identity provider gave them (groups, quota class, role source). */
  private async view(user: User): Promise<AdminUserView> {
    return { ...user, keys: (await this.apiKeys.listFor(user.id)).map(keyView), sso: await this.ssoProfiles.of(user.id, user.role) };
  }

  /**
   * Sets the role and/or disables or enables. Disabling refuses the user's keys from the next
   * request on and cancels their running turns (each ends with `turn.cancelled`, its history kept);
   * enabling lets the keys in again. 409 `AUTH.LAST_ADMIN` when it would leave no enabled admin
   * while the bootstrap token is off.
   */
  async update(actor: AdminActor, userId: string, change: UpdateUserBody, intent: 'update' | 'delete' = 'update'): Promise<AdminUserView & { cancelledTurns: number }> {
    const user = await this.found(userId);
    const outcome = await this.users.update(userId, change);
    if (outcome === 'missing') throw notFound(userId);
    if (outcome === 'last-admin') {
      const action = intent === 'delete' ? 'delete' : change.disabled ? 'disable' : 'demote';
      throw new AppError(
        ErrorCode.LastAdmin,
        `Refusing to ${action} ${user.name} (${userId}): they are the last enabled admin user and the bootstrap token is off, so no one could administer this gateway. ` +
          'Make another user admin first, or rotate the bootstrap token (POST /v1/admin/bootstrap-token/rotate) to turn it back on',
        { userId },
      );
    }
    if (change.role !== undefined) await this.audit.record(actor, 'role.set', userId, { role: change.role, previous: user.role });
    if (change.disabled !== undefined) await this.audit.record(actor, change.disabled ? 'user.disabled' : 'user.enabled', userId);
    let cancelledTurns = 0;
    if (change.disabled) {
      for (const session of await this.sessions.listOwned(userId)) {
        if (!session.activeTurnId) continue;
        await this.cancellation.request(session.activeTurnId, 'admin');
        cancelledTurns++;
      }
    }
    return { ...(await this.get(userId)), cancelledTurns };
  }

  /**
   * Deletes the user and everything they own; `confirm` must repeat their name. They are disabled
   * first, so their keys stop and their turns are cancelled before anything is removed.
   */
  async delete(actor: AdminActor, userId: string, confirm: string): Promise<DeletedUser> {
    const user = await this.found(userId);
    if (confirm !== user.name) {
      throw new AppError(ErrorCode.ValidationFailed, `To delete user ${userId}, send {"confirm": "${user.name}"}: their sessions, workspaces, notes, rules and keys go with them`);
    }
    await this.update(actor, userId, { disabled: true }, 'delete');
    const deleted = await this.deletion.delete(user);
    await this.audit.record(actor, 'user.deleted', userId, { ...deleted });
    return deleted;
  }

  /** The key is returned here, once; only its hash is kept. */
  async createKey(actor: AdminActor, userId: string, body: CreateKeyBody = {}): Promise<KeyView & { key: string }> {
    await this.found(userId);
    const key = generateApiKey();
    const stored = {
      keyId: newId('key'),
      userId,
      name: body.name ?? '',
      prefix: key.slice(0, SHOWN_PREFIX),
      createdAt: new Date().toISOString(),
      expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : '',
    };
    await this.apiKeys.save(hashApiKey(key), stored);
    await this.audit.record(actor, 'key.created', userId, { keyId: stored.keyId, name: stored.name || null, prefix: stored.prefix, expiresAt: stored.expiresAt || null });
    return { ...keyView({ ...stored, lastUsedAt: '' }), key };
  }

  async revokeKey(actor: AdminActor, userId: string, keyId: string): Promise<void> {
    await this.found(userId);
    if (!(await this.apiKeys.revoke(userId, keyId))) throw new AppError(ErrorCode.NotFound, `User ${userId} has no key ${keyId}`);
    await this.audit.record(actor, 'key.revoked', userId, { keyId });
  }

  /** The caller's own keys; `current` marks the one this request came with. */
  async ownKeys(principal: Principal): Promise<Array<KeyView & { current: boolean }>> {
    return (await this.apiKeys.listFor(principal.userId)).map((key) => ({ ...keyView(key), current: key.keyId === principal.keyId }));
  }

  /** A key the user makes for themselves, audited with them as the actor, like an admin's. */
  createOwnKey(principal: Principal, body: CreateKeyBody): Promise<KeyView & { key: string }> {
    return this.createKey(selfActor(principal), principal.userId, body);
  }

  /**
   * Revokes one of the caller's keys; another user's key is a 404 like a missing one. The key the
   * request came with is refused (409): revoking it would sign the caller out of every client that
   * uses it, with no key left to make a new one if it was their last.
   */
  async revokeOwnKey(principal: Principal, keyId: string): Promise<void> {
    if (keyId === principal.keyId) {
      throw new AppError(ErrorCode.Conflict, `Refusing to revoke ${keyId}: it is the key this request was made with. Sign in with another of your keys to revoke it, or ask your admin`, { keyId });
    }
    if (!(await this.apiKeys.revoke(principal.userId, keyId))) throw new AppError(ErrorCode.NotFound, `You have no key ${keyId}`);
    await this.audit.record(selfActor(principal), 'key.revoked', principal.userId, { keyId });
  }

  async me(userId: string): Promise<{ id: string; name: string; role: UserRole }> {
    const user = await this.users.find(userId);
    if (!user) throw new AppError(ErrorCode.Unauthorized, 'Invalid API key');
    return { id: user.id, name: user.name, role: user.role };
  }

  private async found(userId: string): Promise<User> {
    const user = await this.users.find(userId);
    if (!user) throw notFound(userId);
    return user;
  }
}

function notFound(userId: string): AppError {
  return new AppError(ErrorCode.NotFound, `User ${userId} not found`);
}

/** A user acting on their own keys, as the audit log names actors. */
function selfActor(principal: Principal): AdminActor {
  return { kind: 'user', userId: principal.userId, keyId: principal.keyId };
}

function keyView(key: StoredApiKey): KeyView {
  return { id: key.keyId, name: key.name || null, prefix: `${key.prefix}…`, createdAt: key.createdAt, expiresAt: key.expiresAt || null, lastUsedAt: key.lastUsedAt || null };
}
