import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, type ChatMessage, ErrorCode, Routes } from '@weft/contracts';
import { NatsEventBus } from '@weft/messaging';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { parseAt, parseBody } from '../request-fields';
import type { InputItem } from './response-input';
import { ResponseStore, type StoredResponse } from './response-store.repository';

export const inputItemsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  order: z.enum(['asc', 'desc']).default('desc'),
  after: z.string().min(1).optional(),
});

const itemReferenceSchema = z.object({ type: z.literal('item_reference'), id: z.string().min(1) });

/** A request's input after its `item_reference`s are replaced by the items they name. */
export interface ResolvedInput {
  input: string | InputItem[];
  /** Ids of the items that came by reference: another response owns them. */
  referencedItemIds: string[];
}

/** Statuses a follow-up may continue from: the reply is there, whole or cut. */
const CONTINUABLE = new Set(['completed', 'incomplete']);

/**
 * What a user does with their stored responses: read, delete, cancel one in progress, list its
 * input, continue from it. Every lookup is by the caller's user id, so another user's id is a 404
 * exactly as an unknown one.
 */
@Injectable()
export class StoredResponses {
  constructor(
    private readonly store: ResponseStore,
    private readonly bus: NatsEventBus,
  ) {}

  async retrieve(userId: string, id: string) {
    return (await this.find(userId, id)).response;
  }

  async delete(userId: string, id: string) {
    if (!(await this.store.delete(userId, id))) throw notFound(id);
    return { id, object: 'response', deleted: true };
  }

  /**
   * Stops the generation of a response in progress, on whichever worker runs it; the replica
   * streaming it records it as cancelled. A finished response → 400, as OpenAI answers.
   */
  async cancel(userId: string, id: string) {
    const { response, requestId } = await this.find(userId, id);
    if (response.status !== 'in_progress' || !requestId) {
      throw badRequest(`Response ${id} is ${response.status}: only a response in progress can be cancelled`);
    }
    this.bus.publish(Routes.inferenceCancel, { requestId });
    return { ...response, status: 'cancelled' as const };
  }

  async inputItems(userId: string, id: string, query: unknown) {
    const { limit, order, after } = parseBody(inputItemsQuerySchema, query);
    const items = (await this.find(userId, id)).inputItems;
    const ordered = order === 'asc' ? items : [...items].reverse();
    const start = after === undefined ? 0 : ordered.findIndex((item) => item.id === after) + 1;
    const data = ordered.slice(start, start + limit);
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + limit < ordered.length };
  }

  /** The conversation `previous_response_id` continues; none without one. */
  async history(userId: string, previousId: string | null | undefined): Promise<ChatMessage[]> {
    if (!previousId) return [];
    const record = await this.store.get(userId, previousId);
    if (!record) throw badRequest(`Previous response with id '${previousId}' not found.`, 'previous_response_id');
    if (!CONTINUABLE.has(record.response.status)) {
      throw badRequest(`Previous response ${previousId} is ${record.response.status}: only a finished response can be continued`, 'previous_response_id');
    }
    return record.conversation;
  }

  /**
   * `input` with each `item_reference` replaced by the item it names: an output item of one of the
   * user's stored responses, or an input item of one (as the AI SDK sends back earlier replies).
   * An id the user has no item by → 404, another user's included.
   */
  async resolveReferences(userId: string, input: string | readonly InputItem[]): Promise<ResolvedInput> {
    if (typeof input === 'string') return { input, referencedItemIds: [] };
    const references = input.flatMap((item, i) => (item.type === 'item_reference' ? [{ i, id: parseAt(itemReferenceSchema, item, `input[${i}]`).id }] : []));
    if (references.length === 0) return { input: [...input], referencedItemIds: [] };
    const found = await this.store.items(userId, references.map((ref) => ref.id));
    const resolved = [...input];
    references.forEach((ref, j) => {
      const item = found[j];
      if (!item) throw new AppError(ErrorCode.NotFound, `Item with id '${ref.id}' not found.`, { param: `input[${ref.i}].id` });
      resolved[ref.i] = item;
    });
    return { input: resolved, referencedItemIds: references.map((ref) => ref.id) };
  }

  private async find(userId: string, id: string): Promise<StoredResponse> {
    const record = await this.store.get(userId, id);
    if (!record) throw notFound(id);
    return record;
  }
}

/** The request's input as items with ids, as `GET …/input_items` lists them. */
export function storedInputItems(input: string | readonly InputItem[]): Array<Record<string, unknown>> {
  const items: readonly InputItem[] = typeof input === 'string' ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }] : input;
  return items.map((item) => ({ ...item, id: typeof item.id === 'string' ? item.id : `item_${randomBytes(12).toString('hex')}` }));
}

function notFound(id: string): AppError {
  return new AppError(ErrorCode.NotFound, `Response with id '${id}' not found.`);
}
