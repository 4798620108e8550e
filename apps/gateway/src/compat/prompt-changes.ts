import { createHash } from 'node:crypto';
import type { ChatMessage } from '@weft/contracts';

/** Conversations remembered: enough for a team's agents, bounded whatever the traffic. */
const REMEMBERED_CONVERSATIONS = 2_000;

/** Where a request departs from the previous request of its conversation. */
export interface PromptChange {
  /** The first message that is not what the previous request sent at that place. */
  firstChanged: number;
  role: ChatMessage['role'];
  previousMessages: number;
  messages: number;
}

/**
 * Remembers the last prompt of each stateless conversation as one hash per message, to say
 * where the next request changed it: a client that edits an early message (a reminder, a date,
 * a tool list) makes the worker evaluate everything after that point again. Only positions and
 * roles come out, never content. In one gateway's memory: a diagnostic, not a record.
 */
export class PromptChanges {
  private readonly last = new Map<string, string[]>();

  constructor(private readonly capacity = REMEMBERED_CONVERSATIONS) {}

  /** Records this request; answers where it changed the previous one, or undefined if it only appended. */
  record(conversation: string, messages: readonly ChatMessage[]): PromptChange | undefined {
    const hashes = messages.map(hashMessage);
    const previous = this.last.get(conversation);
    this.last.delete(conversation);
    this.last.set(conversation, hashes);
    if (this.last.size > this.capacity) this.last.delete(this.last.keys().next().value as string);
    if (!previous) return undefined;
    const firstChanged = previous.findIndex((hash, i) => hashes[i] !== hash);
    if (firstChanged < 0) return undefined;
    return { firstChanged, role: messages[firstChanged]?.role ?? 'user', previousMessages: previous.length, messages: messages.length };
  }
}

function hashMessage(message: ChatMessage): string {
  return createHash('sha256').update(JSON.stringify(message)).digest('base64url');
}
