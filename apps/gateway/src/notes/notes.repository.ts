import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Redis } from 'ioredis';
import type { Note, NotesPort } from '../agent-core/ports';
import { newId } from '../common/ids';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';

/** Notes a workspace keeps at most; every prompt carries them, so the oldest make way. */
export const MAX_NOTES_PER_WORKSPACE = 100;

/** A workspace's shared notes, in one Redis hash (note id → JSON). */
@Injectable()
export class NotesRepository implements NotesPort {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Oldest first. */
  async list(workspaceId: string): Promise<Note[]> {
    const raw = await this.redis.hvals(this.keys.workspaceNotes(workspaceId));
    return raw.map((json) => JSON.parse(json) as Note).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** The same text twice is stored once: a resumed turn or a model that repeats itself adds nothing. */
  async add(workspaceId: string, note: Pick<Note, 'text' | 'source' | 'author'>): Promise<Note> {
    const existing = await this.list(workspaceId);
    const text = note.text.trim();
    const same = existing.find((n) => n.text === text);
    if (same) return same;
    const stored: Note = { id: newId('note'), ...note, text, createdAt: new Date().toISOString() };
    const overflow = existing.slice(0, Math.max(0, existing.length + 1 - MAX_NOTES_PER_WORKSPACE));
    const tx = this.redis.multi().hset(this.keys.workspaceNotes(workspaceId), stored.id, JSON.stringify(stored));
    if (overflow.length > 0) tx.hdel(this.keys.workspaceNotes(workspaceId), ...overflow.map((n) => n.id));
    await tx.exec();
    return stored;
  }

  async remove(workspaceId: string, noteId: string): Promise<void> {
    const removed = await this.redis.hdel(this.keys.workspaceNotes(workspaceId), noteId);
    if (removed === 0) throw new AppError(ErrorCode.NotFound, `Note ${noteId} not found`);
  }

  async clear(workspaceId: string): Promise<number> {
    const count = await this.redis.hlen(this.keys.workspaceNotes(workspaceId));
    await this.redis.del(this.keys.workspaceNotes(workspaceId));
    return count;
  }
}
