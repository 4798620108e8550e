import { ApiCaller, type AuditQuery, type CreateKeyBody, type LimitOverridesBody, type UpdateUserBody, type UserRole, apiRoutes } from '@weft/contracts';
import { BrowserTransport } from './client';

/** What the usage routes filter by: UTC days, inclusive; an admin may narrow to one user. */
export interface UsageFilter {
  from: string;
  to: string;
  model?: string;
  user?: string;
}

/** A CSV download may be a year of rows: longer than a plain call's deadline. */
const DOWNLOAD_TIMEOUT_MS = 120_000;

/**
 * The routes of the Me and Admin pages (docs/api.md, "Me" and "Admin"), on the shared typed
 * caller and the page's own transport. The admin calls need an admin user's key; a member's gets
 * 403, which the pages show like any other error.
 */
export class AccountApi {
  private readonly api: ApiCaller;

  constructor(key: string) {
    this.api = new ApiCaller(new BrowserTransport(key));
  }

  // ---- the caller's own ------------------------------------------------------------------------

  instructions() {
    return this.api.json(apiRoutes.instructions, {});
  }

  /** Empty content removes them. */
  setInstructions(content: string) {
    return this.api.json(apiRoutes.setInstructions, { body: { content } });
  }

  async myKeys() {
    return (await this.api.json(apiRoutes.myKeys, {})).keys;
  }

  /** The answer holds the key itself, this once. */
  createMyKey(body: CreateKeyBody) {
    return this.api.json(apiRoutes.createMyKey, { body });
  }

  async revokeMyKey(keyId: string): Promise<void> {
    await this.api.send(apiRoutes.revokeMyKey, { params: { keyId } });
  }

  myUsage(filter: UsageFilter) {
    return this.api.json(apiRoutes.myUsage, { query: { from: filter.from, to: filter.to, model: filter.model } });
  }

  myLimits() {
    return this.api.json(apiRoutes.myLimits, {});
  }

  // ---- admin -----------------------------------------------------------------------------------

  async users() {
    return (await this.api.json(apiRoutes.users, {})).users;
  }

  /** One user with their keys. */
  user(userId: string) {
    return this.api.json(apiRoutes.user, { params: { id: userId } });
  }

  createUser(name: string, role: UserRole) {
    return this.api.json(apiRoutes.createUser, { body: { name, role } });
  }

  updateUser(userId: string, change: UpdateUserBody) {
    return this.api.json(apiRoutes.updateUser, { params: { id: userId }, body: change });
  }

  /** `confirm` must be the user's name. */
  deleteUser(userId: string, confirm: string) {
    return this.api.json(apiRoutes.deleteUser, { params: { id: userId }, body: { confirm } });
  }

  createKey(userId: string, body: CreateKeyBody) {
    return this.api.json(apiRoutes.createKey, { params: { id: userId }, body });
  }

  async revokeKey(userId: string, keyId: string): Promise<void> {
    await this.api.send(apiRoutes.revokeKey, { params: { id: userId, keyId } });
  }

  userLimits(userId: string) {
    return this.api.json(apiRoutes.userLimits, { params: { id: userId } });
  }

  /** Replaces every override: a limit left out goes back to the server default. */
  setUserLimits(userId: string, overrides: LimitOverridesBody) {
    return this.api.json(apiRoutes.setUserLimits, { params: { id: userId }, body: overrides });
  }

  allUsage(filter: UsageFilter) {
    return this.api.json(apiRoutes.allUsage, { query: usageQuery(filter) });
  }

  async allUsageCsv(filter: UsageFilter): Promise<Blob> {
    const signal = AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS);
    return (await this.api.send(apiRoutes.allUsage, { query: { ...usageQuery(filter), format: 'csv' }, signal })).blob();
  }

  async fleet() {
    return (await this.api.json(apiRoutes.fleet, {})).workers;
  }

  /** One page of the audit trail, newest first; its `next` as `before` gives the page after. */
  audit(query: AuditQuery) {
    return this.api.json(apiRoutes.audit, { query });
  }
}

function usageQuery(filter: UsageFilter) {
  return { from: filter.from, to: filter.to, model: filter.model || undefined, user: filter.user || undefined };
}
