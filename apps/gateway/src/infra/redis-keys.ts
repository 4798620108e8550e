/** Every Redis key the gateway writes, under one configurable prefix. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  user(userId: string) {
    return `${this.prefix}user:${userId}`;
  }
  /** The admin actions' audit stream. */
  adminAudit() {
    return `${this.prefix}admin-audit`;
  }
  /** The bootstrap admin token's state: absent while WEFT_ADMIN_TOKEN is in effect; else rotated (its hash) or off. */
  adminBootstrap() {
    return `${this.prefix}admin-bootstrap`;
  }
  /** Ids of the users whose role is admin and who are not disabled. */
  enabledAdmins() {
    return `${this.prefix}admin-users`;
  }
  /** Every user id, scored by creation time. */
  users() {
    return `${this.prefix}users`;
  }
  /** Lower-cased user name → user id: names are unique. */
  userNames() {
    return `${this.prefix}user-names`;
  }
  userKeys(userId: string) {
    return `${this.prefix}user:${userId}:keys`;
  }
  apiKey(keyHash: string) {
    return `${this.prefix}apikey:${keyHash}`;
  }
  workspace(workspaceId: string) {
    return `${this.prefix}workspace:${workspaceId}`;
  }
  /** Held while a workspace is synced, deleted or expired, so those never overlap. */
  workspaceLock(workspaceId: string) {
    return `${this.prefix}workspace:${workspaceId}:lock`;
  }
  /** Held by the replica sweeping idle workspaces this interval. */
  workspaceExpiryLease() {
    return `${this.prefix}workspace-expiry`;
  }
  userWorkspaces(userId: string) {
    return `${this.prefix}user:${userId}:workspaces`;
  }
  session(sessionId: string) {
    return `${this.prefix}session:${sessionId}`;
  }
  sessionMessages(sessionId: string) {
    return `${this.prefix}session:${sessionId}:messages`;
  }
  sessionEvents(sessionId: string) {
    return `${this.prefix}session:${sessionId}:events`;
  }
  /** Set while the user's workspaces were last measured over WORKSPACE_QUOTA_BYTES. */
  userOverQuota(userId: string) {
    return `${this.prefix}user:${userId}:over-quota`;
  }
  userSessions(userId: string) {
    return `${this.prefix}user:${userId}:sessions`;
  }
  /** A scope's permission rules: one set per list (`allow`, `ask`, `deny`). */
  permissionRules(scope: string, owner: string, list: string) {
    return `${this.prefix}perm:${scope}:${owner}:${list}`;
  }
  permissionRequest(requestId: string) {
    return `${this.prefix}permreq:${requestId}`;
  }
  /** The list a waiting run blocks on (BLPOP) until the request is answered. */
  permissionAnswer(requestId: string) {
    return `${this.prefix}permreq:${requestId}:answer`;
  }
  /** Call id → request id, so a resumed run finds the question it had already asked. */
  sessionPermissionRequests(sessionId: string) {
    return `${this.prefix}session:${sessionId}:permreqs`;
  }
  /** Call id → outcome of the tool call, so no call runs twice. */
  sessionToolResults(sessionId: string) {
    return `${this.prefix}session:${sessionId}:results`;
  }
  /** The ids of a session's other conversations (delegations, subtasks), so deleting it finds them. */
  sessionThreads(sessionId: string) {
    return `${this.prefix}session:${sessionId}:threads`;
  }
  threadMessages(sessionId: string, threadId: string) {
    return `${this.prefix}session:${sessionId}:thread:${threadId}:messages`;
  }
  threadToolResults(sessionId: string, threadId: string) {
    return `${this.prefix}session:${sessionId}:thread:${threadId}:results`;
  }
  /** Thread id → its compaction state (JSON). */
  threadContexts(sessionId: string) {
    return `${this.prefix}session:${sessionId}:threadctx`;
  }
  /** Turn id → how far a planning or chain turn got (JSON), so a resumed run carries on. */
  turnProgress(sessionId: string) {
    return `${this.prefix}session:${sessionId}:progress`;
  }
  /** A workspace's shared notes: a list of JSON records, oldest first. */
  workspaceNotes(workspaceId: string) {
    return `${this.prefix}workspace:${workspaceId}:notes`;
  }
  turnCancel(turnId: string) {
    return `${this.prefix}turn:${turnId}:cancel`;
  }
  /** Pub/sub channel that tells every replica a turn was cancelled. */
  turnCancelChannel() {
    return `${this.prefix}turn-cancel`;
  }
  /** An admin's overrides of the server's default quotas and fair-share weight for a user. */
  userLimits(userId: string) {
    return `${this.prefix}user:${userId}:limits`;
  }
  /** The user's running turns (`sessionId turnId` → claimed at, ms), for the concurrent-turns quota. */
  userActiveTurns(userId: string) {
    return `${this.prefix}user:${userId}:active-turns`;
  }
  /** One UTC day's usage: field `userId|model|metric` → count. */
  usageDay(day: string) {
    return `${this.prefix}usage:${day}`;
  }
  /** The per-minute request counters of rate-limiter-flexible. */
  requestRatePrefix() {
    return `${this.prefix}rate`;
  }
  userInstructions(userId: string) {
    return `${this.prefix}user:${userId}:instructions`;
  }
  /** The user's own MCP servers, an `mcpServers` document. */
  userMcp(userId: string) {
    return `${this.prefix}user:${userId}:mcp`;
  }
  /** BullMQ's own prefix, so queues of two deployments never mix. */
  bullPrefix() {
    return `${this.prefix}bull`;
  }
}
