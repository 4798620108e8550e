/** The runner's view of the store: its version and a lock that one replica holds while it migrates. */
export interface VersionStore {
  readonly prefix: string;
  /** 0 for a store that was never stamped. */
  version(): Promise<number>;
  setVersion(version: number): Promise<void>;
  /** Takes the lock, or answers false when another replica holds it. */
  tryLock(): Promise<boolean>;
  unlock(): Promise<void>;
  /** Resolves once the lock is free (or the deadline passed), for a replica that waits on another. */
  lockReleased(deadlineMs: number): Promise<void>;
}
