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
});

export interface StoredResponse {
  response: ResponseObject;
  conversation: ChatMessage[];
  inputItems: Array<Record<string, unknown>>;
  requestId?: string;
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

  async save(userId: string, record: StoredResponse): Promise<void> {
    await this.redis.set(this.key(userId, record.response.id), JSON.stringify(record), 'EX', this.config.OPENAI_RESPONSES_TTL_DAYS * DAY_S);
  }

  async get(userId: string, id: string): Promise<StoredResponse | undefined> {
    const raw = await this.redis.get(this.key(userId, id));
    if (raw === null) return undefined;
    // Written by this class alone: a record that does not parse is a bug, not user input.
    return storedResponseSchema.parse(JSON.parse(raw)) as unknown as StoredResponse;
  }

  async delete(userId: string, id: string): Promise<boolean> {
    return (await this.redis.del(this.key(userId, id))) === 1;
  }

  private key(userId: string, id: string): string {
    // Under the user's own prefix, as every record of a user is (RedisKeys).
    return `${this.keys.user(userId)}:response:${id}`;
  }
}
