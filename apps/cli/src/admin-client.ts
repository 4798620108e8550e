import { z } from 'zod';
import { allUsageSchema, userLimitsSchema, type AllUsage, type LimitOverrides, type UsageFilter, type UserLimits } from './accounting-schemas';
import { AdminTokenRefusedError, ApiError } from './errors';
import { GatewayHttp, jsonBody, queryString, type FetchFn, type RequestOptions } from './gateway-http';

const keySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];
const roleSchema = z.enum(USER_ROLES);
const userSchema = z.object({ id: z.string(), name: z.string(), createdAt: z.string(), role: roleSchema, disabled: z.boolean(), keys: z.array(keySchema) });
const usersSchema = z.object({ users: z.array(userSchema) });
const createdUserSchema = z.object({ id: z.string(), name: z.string(), role: roleSchema });
const updatedUserSchema = userSchema.extend({ cancelledTurns: z.number() });
const createdKeySchema = keySchema.extend({ key: z.string() });
const deletedUserSchema = z.object({ id: z.string(), name: z.string(), sessions: z.number(), workspaces: z.number(), keys: z.number() });
const bootstrapTokenSchema = z.object({ state: z.enum(['env', 'rotated', 'off']), changedAt: z.string().nullable(), enabledAdmins: z.number() });
const rotatedTokenSchema = bootstrapTokenSchema.extend({ token: z.string() });
const fleetModelSchema = z.object({ id: z.string(), loaded: z.boolean(), sequences: z.number().nullable(), freeSequences: z.number(), queued: z.number(), cachedSessions: z.number() });
const fleetWorkerSchema = z.object({
  workerId: z.string(),
  host: z.string().nullable(),
  status: z.string(),
  startedAt: z.string(),
  lastHeartbeatAt: z.string(),
  inFlight: z.number(),
  gpu: z.object({ type: z.string(), vramTotalBytes: z.number(), vramUsedBytes: z.number() }).nullable(),
  models: z.array(fleetModelSchema),
});
const fleetSchema = z.object({ workers: z.array(fleetWorkerSchema) });

export type AdminUser = z.infer<typeof userSchema>;
export type AdminKey = z.infer<typeof keySchema>;
export type CreatedKey = z.infer<typeof createdKeySchema>;
export type UpdatedUser = z.infer<typeof updatedUserSchema>;
export type DeletedUser = z.infer<typeof deletedUserSchema>;
export type BootstrapToken = z.infer<typeof bootstrapTokenSchema>;
export type RotatedToken = z.infer<typeof rotatedTokenSchema>;
export type FleetWorker = z.infer<typeof fleetWorkerSchema>;

const userPath = (userId: string) => `/v1/admin/users/${encodeURIComponent(userId)}`;

/** The gateway's admin routes (docs/api.md, "Admin"), with the bootstrap token or an admin user's key as the bearer. */
export class AdminClient {
  private readonly http: GatewayHttp;

  constructor(
    readonly baseUrl: string,
    /** The bootstrap token, or an admin user's API key. */
    adminToken: string,
    fetchFn: FetchFn = fetch,
  ) {
    this.http = new GatewayHttp(baseUrl, adminToken, fetchFn);
  }

  /** The inference workers the gateway hears from, local or on other hosts. */
  async fleet(): Promise<FleetWorker[]> {
    return (await this.json('GET', '/v1/admin/fleet', fleetSchema)).workers;
  }

  async listUsers(): Promise<AdminUser[]> {
    return (await this.json('GET', '/v1/admin/users', usersSchema)).users;
  }

  getUser(userId: string): Promise<AdminUser> {
    return this.json('GET', userPath(userId), userSchema);
  }

  /** 409 `COMMON.CONFLICT` when the name is taken. The gateway's default role is `member`. */
  createUser(name: string, role?: UserRole): Promise<{ id: string; name: string; role: UserRole }> {
    return this.json('POST', '/v1/admin/users', createdUserSchema, jsonBody(role ? { name, role } : { name }));
  }

  /** 409 `AUTH.LAST_ADMIN` when it would demote the last enabled admin while the bootstrap token is off. */
  setRole(userId: string, role: UserRole): Promise<UpdatedUser> {
    return this.json('PATCH', userPath(userId), updatedUserSchema, jsonBody({ role }));
  }

  /** Disabling refuses the user's keys and cancels their running turns. */
  setDisabled(userId: string, disabled: boolean): Promise<UpdatedUser> {
    return this.json('PATCH', userPath(userId), updatedUserSchema, jsonBody({ disabled }));
  }

  /** Everything the user owns goes with them; `confirm` repeats their name. */
  deleteUser(userId: string, confirm: string): Promise<DeletedUser> {
    return this.json('DELETE', userPath(userId), deletedUserSchema, jsonBody({ confirm }));
  }

  /** The answer holds the key itself, which the gateway never shows again. */
  createKey(userId: string, input: { name?: string; expiresAt?: string }): Promise<CreatedKey> {
    return this.json('POST', `${userPath(userId)}/keys`, createdKeySchema, jsonBody(input));
  }

  async revokeKey(userId: string, keyId: string): Promise<void> {
    await this.guard(() => this.http.send('DELETE', `${userPath(userId)}/keys/${encodeURIComponent(keyId)}`, {}));
  }

  limits(userId: string): Promise<UserLimits> {
    return this.json('GET', `${userPath(userId)}/limits`, userLimitsSchema);
  }

  /** Replaces the user's overrides; `{}` puts them back on the server defaults. */
  replaceLimits(userId: string, overrides: LimitOverrides): Promise<UserLimits> {
    return this.json('PUT', `${userPath(userId)}/limits`, userLimitsSchema, jsonBody(overrides));
  }

  usage(filter: UsageFilter & { user?: string }): Promise<AllUsage> {
    return this.json('GET', `/v1/admin/usage${queryString({ ...filter })}`, allUsageSchema);
  }

  /** The same rows as CSV, header first, as the gateway writes it. */
  usageCsv(filter: UsageFilter & { user?: string }): Promise<string> {
    return this.guard(() => this.http.text('GET', `/v1/admin/usage${queryString({ ...filter, format: 'csv' })}`));
  }

  bootstrapToken(): Promise<BootstrapToken> {
    return this.json('GET', '/v1/admin/bootstrap-token', bootstrapTokenSchema);
  }

  /** The new bootstrap token, which the gateway shows this once; the one before is refused from now on. */
  rotateBootstrapToken(): Promise<RotatedToken> {
    return this.json('POST', '/v1/admin/bootstrap-token/rotate', rotatedTokenSchema);
  }

  /** 409 `AUTH.LAST_ADMIN` while no enabled admin user exists. */
  turnOffBootstrapToken(): Promise<BootstrapToken> {
    return this.json('DELETE', '/v1/admin/bootstrap-token', bootstrapTokenSchema);
  }

  private json<T>(method: string, path: string, schema: z.ZodType<T>, options?: RequestOptions): Promise<T> {
    return this.guard(() => this.http.json(method, path, schema, options));
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
