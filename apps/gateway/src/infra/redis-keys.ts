/** Every Redis key the gateway writes, under one configurable prefix. */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  user(userId: string) {
    return `${this.prefix}user:${userId}`;
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
  userSessions(userId: string) {
    return `${this.prefix}user:${userId}:sessions`;
  }
  /** BullMQ's own prefix, so queues of two deployments never mix. */
  bullPrefix() {
    return `${this.prefix}bull`;
  }
}
