import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat, utimes } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from '@weft/logging';

interface Entry {
  path: string;
  bytes: number;
}

/** How often a live store marks its folder as in use, and after how long a folder counts as left behind. */
const TOUCH_INTERVAL_MS = 15 * 60_000;
export const ABANDONED_AFTER_MS = 4 * TOUCH_INTERVAL_MS;

/**
 * Keeps evicted sessions' KV caches on disk so their next turn restores instead of recomputing.
 * The folder is this process's own (wiped at start): a state file loaded into a different model
 * can crash llama.cpp, so nothing from another run is ever trusted. Least recently saved states
 * are deleted first once `maxBytes` is exceeded. Several workers may share the parent folder (a
 * volume): each keeps its folder's time fresh while it runs, removes it when it stops, and at
 * start removes the folders of workers that died without doing so.
 */
export class SessionStateStore {
  /** Insertion order is recency: re-saving a session moves it to the end. */
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private ready?: Promise<void>;
  private touching?: NodeJS.Timeout;

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
    clearInterval(this.touching);
    this.entries.clear();
    this.bytes = 0;
    await rm(this.dir, { recursive: true, force: true });
  }

  private init(): Promise<void> {
    this.ready ??= this.start();
    return this.ready;
  }

  private async start(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
    const removed = await removeAbandoned(dirname(this.dir), basename(this.dir), Date.now() - ABANDONED_AFTER_MS);
    if (removed.length > 0) this.log.info({ removed }, 'removed KV state folders of workers that stopped without cleaning up');
    this.touching = setInterval(() => {
      const now = new Date();
      utimes(this.dir, now, now).catch(() => undefined);
    }, TOUCH_INTERVAL_MS).unref();
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

/** Removes the folders under `parent`, other than `own`, last marked in use before `before` (ms). */
export async function removeAbandoned(parent: string, own: string, before: number): Promise<string[]> {
  const removed: string[] = [];
  for (const entry of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || entry.name === own) continue;
    const path = join(parent, entry.name);
    const modified = await stat(path).then((s) => s.mtimeMs, () => Number.POSITIVE_INFINITY);
    if (modified >= before) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(entry.name);
  }
  return removed;
}
