import { createHash } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@weft/logging';

interface Entry {
  path: string;
  bytes: number;
}

/**
 * Keeps evicted sessions' KV caches on disk so their next turn restores instead of recomputing.
 * The folder is this process's own (wiped at start): a state file loaded into a different model
 * can crash llama.cpp, so nothing from another run is ever trusted. Least recently saved states
 * are deleted first once `maxBytes` is exceeded.
 */
export class SessionStateStore {
  /** Insertion order is recency: re-saving a session moves it to the end. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private ready?: Promise<void>;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly log: Logger,
  ) {}

  has(sessionId: string): boolean {
    return this.entries.has(sessionId);
  }

  /** Sessions with a saved state, most recent first. */
  sessions(): string[] {
    return [...this.entries.keys()].reverse();
  }

  /** Writes a session's state with `write(path)`, which returns the file's size. */
  async save(sessionId: string, write: (path: string) => Promise<{ fileSize: number }>): Promise<void> {
    await this.init();
    const path = join(this.dir, `${createHash('sha256').update(sessionId).digest('hex').slice(0, 32)}.kv`);
    await this.forget(sessionId);
    const started = performance.now();
    const { fileSize } = await write(path);
    this.entries.set(sessionId, { path, bytes: fileSize });
    this.bytes += fileSize;
    this.log.debug({ sessionId, bytes: fileSize, ms: Math.round(performance.now() - started) }, 'saved evicted session KV state');
    await this.trim();
  }

  /** Loads a session's saved state with `read(path)` and forgets it; false when none is saved. */
  async restore(sessionId: string, read: (path: string) => Promise<void>): Promise<boolean> {
    const entry = this.entries.get(sessionId);
    if (!entry) return false;
    try {
      await read(entry.path);
      return true;
    } finally {
      await this.forget(sessionId);
    }
  }

  async clear(): Promise<void> {
    this.entries.clear();
    this.bytes = 0;
    await rm(this.dir, { recursive: true, force: true });
  }

  private init(): Promise<void> {
    this.ready ??= rm(this.dir, { recursive: true, force: true }).then(() => mkdir(this.dir, { recursive: true })).then(() => undefined);
    return this.ready;
  }

  private async forget(sessionId: string): Promise<void> {
    const entry = this.entries.get(sessionId);
    if (!entry) return;
    this.entries.delete(sessionId);
    this.bytes -= entry.bytes;
    await rm(entry.path, { force: true });
  }

  private async trim(): Promise<void> {
    for (const sessionId of this.entries.keys()) {
      if (this.bytes <= this.maxBytes) return;
      await this.forget(sessionId);
    }
  }
}
