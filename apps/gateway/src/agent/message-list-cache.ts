import { type ChatMessage, chatMessageSchema } from '@weft/contracts';
import type { Redis } from 'ioredis';

interface CachedList {
  messages: ChatMessage[];
  /** The raw JSON of the last entry, to tell that the stored list still begins with what is cached. */
  lastRaw: string;
}

/**
 * A conversation's messages as read from its Redis list, kept in memory between model steps so a
 * long turn does not read back and re-parse its whole history on every step (O(n²) in a turn).
 * Redis stays the source of truth: each read fetches the entries from the last cached one on, and
 * only when that entry is still where it was are the new ones appended to the cached copy;
 * anything else (a deleted or rebuilt list, another replica's appends are fine) reads it whole.
 */
export class MessageListCache {
  private readonly lists = new Map<string, CachedList>();

  constructor(
    private readonly redis: Redis,
    /** How many conversations are kept; the least recently read goes first. */
    private readonly capacity = 256,
  ) {}

  async read(key: string): Promise<ChatMessage[]> {
    const cached = this.lists.get(key);
    if (cached) {
      const from = cached.messages.length - 1;
      const tail = await this.redis.lrange(key, from, -1);
      if (tail[0] === cached.lastRaw) {
        cached.messages.push(...tail.slice(1).map(parse));
        cached.lastRaw = tail.at(-1) ?? cached.lastRaw;
        this.touch(key, cached);
        return [...cached.messages];
      }
    }
    const raw = await this.redis.lrange(key, 0, -1);
    const messages = raw.map(parse);
    const last = raw.at(-1);
    if (last === undefined) this.lists.delete(key);
    else this.touch(key, { messages, lastRaw: last });
    return [...messages];
  }

  get size(): number {
    return this.lists.size;
  }

  private touch(key: string, list: CachedList): void {
    this.lists.delete(key);
    this.lists.set(key, list);
    if (this.lists.size > this.capacity) this.lists.delete(this.lists.keys().next().value as string);
  }
}

function parse(json: string): ChatMessage {
  return chatMessageSchema.parse(JSON.parse(json));
}
