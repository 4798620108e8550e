import {
  ApiCaller,
  type ApiRoute,
  type AuditPage,
  type AuditQuery,
  type CallArgs,
  type JsonRoute,
  type ResponseOf,
  type UserRole,
  type adminUserSchema,
  type apiKeySchema,
  type bootstrapTokenSchema,
  type createdKeySchema,
  type deletedUserSchema,
  type fleetWorkerSchema,
  type rotatedTokenSchema,
  type updatedUserSchema,
  USER_ROLES,
  apiRoutes,
} from '@weft/contracts';
import type { z } from 'zod';
import type { AllUsage, LimitOverrides, UsageFilter, UserLimits } from './accounting-schemas';
import { ModelsAdminClient } from './commands/admin-models-client';
import { AdminTokenRefusedError, ApiError, ProtocolError } from './errors';
import { GatewayHttp, type FetchFn } from './gateway-http';

export { USER_ROLES, type UserRole };
export type AdminUser = z.infer<typeof adminUserSchema>;
export type AdminKey = z.infer<typeof apiKeySchema>;
export type CreatedKey = z.infer<typeof createdKeySchema>;
export type UpdatedUser = z.infer<typeof updatedUserSchema>;
export type DeletedUser = z.infer<typeof deletedUserSchema>;
export type BootstrapToken = z.infer<typeof bootstrapTokenSchema>;
export type RotatedToken = z.infer<typeof rotatedTokenSchema>;
export type FleetWorker = z.infer<typeof fleetWorkerSchema>;

/** The gateway's admin routes (docs/api.md, "Admin"), with the bootstrap token or an admin user's key as the bearer. */
export class AdminClient {
  private readonly api: ApiCaller;

  constructor(
    readonly baseUrl: string,
    /** The bootstrap token, or an admin user's API key. */
    adminToken: string,
    fetchFn: FetchFn = fetch,
  ) {
    this.api = new ApiCaller(new GatewayHttp(baseUrl, adminToken, fetchFn));
  }

  /** The inference workers the gateway hears from, local or on other hosts. */
  async fleet(): Promise<FleetWorker[]> {
    return (await this.json(apiRoutes.fleet, {})).workers;
  }

  async listUsers(): Promise<AdminUser[]> {
    return (await this.json(apiRoutes.users, {})).users;
  }

  getUser(userId: string): Promise<AdminUser> {
    return this.json(apiRoutes.user, { params: { id: userId } });
  }

  /** 409 `COMMON.CONFLICT` when the name is taken. The gateway's default role is `member`. */
  createUser(name: string, role?: UserRole): Promise<{ id: string; name: string; role: UserRole }> {
    return this.json(apiRoutes.createUser, { body: role ? { name, role } : { name } });
  }

  /** 409 `AUTH.LAST_ADMIN` when it would demote the last enabled admin while the bootstrap token is off. */
  setRole(userId: string, role: UserRole): Promise<UpdatedUser> {
    return this.json(apiRoutes.updateUser, { params: { id: userId }, body: { role } });
  }

  /** Disabling refuses the user's keys and cancels their running turns. */
  setDisabled(userId: string, disabled: boolean): Promise<UpdatedUser> {
    return this.json(apiRoutes.updateUser, { params: { id: userId }, body: { disabled } });
  }

  /** Everything the user owns goes with them; `confirm` repeats their name. */
  deleteUser(userId: string, confirm: string): Promise<DeletedUser> {
    return this.json(apiRoutes.deleteUser, { params: { id: userId }, body: { confirm } });
  }

  /** The answer holds the key itself, which the gateway never shows again. */
  createKey(userId: string, input: { name?: string; expiresAt?: string }): Promise<CreatedKey> {
    return this.json(apiRoutes.createKey, { params: { id: userId }, body: input });
  }

  async revokeKey(userId: string, keyId: string): Promise<void> {
    await this.send(apiRoutes.revokeKey, { params: { id: userId, keyId } });
  }

  limits(userId: string): Promise<UserLimits> {
    return this.json(apiRoutes.userLimits, { params: { id: userId } });
  }

  /** Replaces the user's overrides; `{}` puts them back on the server defaults. */
  replaceLimits(userId: string, overrides: LimitOverrides): Promise<UserLimits> {
    return this.json(apiRoutes.setUserLimits, { params: { id: userId }, body: overrides });
  }

  usage(filter: UsageFilter & { user?: string }): Promise<AllUsage> {
    return this.json(apiRoutes.allUsage, { query: { ...filter } });
  }

  /** The same rows as CSV, header first, as the gateway writes it. */
  async usageCsv(filter: UsageFilter & { user?: string }): Promise<string> {
    return (await this.send(apiRoutes.allUsage, { query: { ...filter, format: 'csv' } })).text();
  }

  /** One page of the audit trail, newest first; pass its `next` as `before` for the page after. */
  audit(query: AuditQuery): Promise<AuditPage> {
    return this.json(apiRoutes.audit, { query });
  }

  bootstrapToken(): Promise<BootstrapToken> {
    return this.json(apiRoutes.bootstrapToken, {});
  }

  /** The new bootstrap token, which the gateway shows this once; the one before is refused from now on. */
  rotateBootstrapToken(): Promise<RotatedToken> {
    return this.json(apiRoutes.rotateBootstrapToken, {});
  }

  /** 409 `AUTH.LAST_ADMIN` while no enabled admin user exists. */
  turnOffBootstrapToken(): Promise<BootstrapToken> {
    return this.json(apiRoutes.disableBootstrapToken, {});
  }

  /** A backup of the whole store and its workspaces, as the gateway streams it (tar.gz). */
  async backup(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const response = await this.send(apiRoutes.backup, { signal });
    if (!response.body) throw new ProtocolError('the gateway sent an empty backup');
    return response.body;
  }

  /** Restores a backup (a file-backed Blob, so it is not read into memory); the gateway's JSON answer. */
  async restore(archive: Blob, force: boolean, signal: AbortSignal): Promise<unknown> {
    const response = await this.send(apiRoutes.restore, { query: force ? { force: 'true' } : {}, body: archive, contentType: 'application/gzip', signal });
    return response.json();
  }

  /** The model registry's routes (`weft admin models`). */
  models(): ModelsAdminClient {
    return new ModelsAdminClient(this.api, (request) => this.guard(request));
  }

  private json<R extends JsonRoute>(route: R, args: CallArgs<R>): Promise<ResponseOf<R>> {
    return this.guard(() => this.api.json(route, args));
  }

  private send<R extends ApiRoute>(route: R, args: CallArgs<R>): Promise<Response> {
    return this.guard(() => this.api.send(route, args));
  }

  private async guard<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) throw new AdminTokenRefusedError(error.code, error.message);
      throw error;
    }
  }
}
