/** The fleet's Redis keys, under the deployment's prefix. */
export class FleetKeys {
  constructor(private readonly prefix: string) {}

  /** A worker's last heartbeat (JSON), expiring when the worker would be dropped. */
  worker(workerId: string): string {
    return `${this.prefix}fleet:worker:${workerId}`;
  }

  /** Sorted set of worker ids by the time their heartbeat expires. */
  workers(): string {
    return `${this.prefix}fleet:workers`;
  }

  /** The worker holding a session's KV cache. */
  affinity(sessionId: string): string {
    return `${this.prefix}fleet:affinity:${sessionId}`;
  }
}
