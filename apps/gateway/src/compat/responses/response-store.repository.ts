import { Inject, Injectable } from '@nestjs/common';
import { type ChatMessage, chatMessageSchema } from '@weft/contracts';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { GATEWAY_CONFIG, type GatewaySettings } from '../../config';
import { RedisKeys } from '../../infra/redis-keys';
import { REDIS } from '../../infra/tokens';
import type { ResponseObject } from './response-object';

const storedResponseSchema = z.object({
  response: z.looseObject({ id: z.string(), status: z.string() }),
  /** The conversation a follow-up (`previous_response_id`) continues: input and reply, without `instructions`. */
  conversation: z.array(chatMessageSchema),
  /** The request's own input items, for `GET …/input_items`. */
  inputItems: z.array(z.looseObject({})),
  /** The generation's id while it runs, for `POST …/cancel`. */
  requestId: z.string().optional(),
  /** Input items that were `item_reference`s to another response's: that response owns them. */
  referencedItemIds: z.array(z.string()).optional(),
});

export interface StoredResponse {
  response: ResponseObject;
  conversation: ChatMessage[];
  inputItems: Array<Record<string, unknown>>;
  requestId?: string;
  referencedItemIds?: string[];
}

const DAY_S = 24 * 60 * 60;

/**
 * Responses created with `store` (OpenAI's default), one JSON record per response under its
 * owner's user id: a lookup by id alone never reaches another user's. Each expires after
 * OPENAI_RESPONSES_TTL_DAYS; each is self-contained, so deleting one leaves later ones whole.
 */
@Injectable()
export class ResponseStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  /** The record, and each item it owns (its output, its own input) for `item_reference`s, with the same lifetime. */
  async save(userId: string, record: StoredResponse): Promise<void> {
    const ttl = this.config.OPENAI_RESPONSES_TTL_DAYS * DAY_S;
    const multi = this.redis.multi().set(this.key(userId, record.response.id), JSON.stringify(record), 'EX', ttl);
    for (const item of ownItems(record)) multi.set(this.itemKey(userId, item.id), JSON.stringify(item), 'EX', ttl);
    await multi.exec();
  }

  /** The items stored under these ids, in their order; undefined for an id the user has no item by. */
  async items(userId: string, ids: readonly string[]): Promise<Array<Record<string, unknown> | undefined>> {
    if (ids.length === 0) return [];
    const raw = await this.redis.mget(ids.map((id) => this.itemKey(userId, id)));
    return raw.map((json) => (json === null ? undefined : (JSON.parse(json) as Record<string, unknown>)));
  }

  async get(userId: string, id: string): Promise<StoredResponse | undefined> {
    const raw = await this.redis.get(this.key(userId, id));
    if (raw === null) return undefined;
    // Written by this class alone: a record that does not parse is a bug, not user input.
    return storedResponseSchema.parse(JSON.parse(raw)) as unknown as StoredResponse;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    const record = await this.get(userId, id);
    if (!record) return false;
    const keys = [this.key(userId, id), ...ownItems(record).map((item) => this.itemKey(userId, item.id))];
    return (await this.redis.del(...keys)) > 0;
  }

  private key(userId: string, id: string): string {
    // Under the user's own prefix, as every record of a user is (RedisKeys).
    return `${this.keys.user(userId)}:response:${id}`;
  }

  private itemKey(userId: string, id: string): string {
    return `${this.keys.user(userId)}:response-item:${id}`;
  }
}

/** The items a response brought: its output and the input items that were not references to earlier ones. */
function ownItems(record: StoredResponse): Array<{ id: string }> {
  const referenced = new Set(record.referencedItemIds ?? []);
  const input = record.inputItems.filter((item): item is Record<string, unknown> & { id: string } => typeof item.id === 'string' && !referenced.has(item.id));
  return [...record.response.output, ...input];
}
