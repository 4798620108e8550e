import type { GenerateResult } from '@weft/contracts';
import {
  functionCallItem,
  itemId,
  messageItem,
  outputText,
  responseObject,
  type OutputItem,
  type ResponseEcho,
  type ResponseObject,
  type ResponseState,
} from './response-object';
import { clientToolName, type ResponseTools } from './response-tools';

export type ResponseEvent = { type: string; sequence_number: number } & Record<string, unknown>;

/**
 * The typed `response.*` events of one streamed response, in OpenAI's order, numbered: created,
 * in_progress, then the message item (added, content part added, text deltas, text done, part
 * done, item done), then each function call item (added, arguments delta, arguments done, item
 * done), then completed (or incomplete when the reply was cut). The same items make the final
 * response, so the SDKs' accumulators find every item they were told of.
 */
export class ResponseEventWriter {
  private sequence = 0;
  private readonly output: OutputItem[] = [];
  private message?: { id: string; index: number; text: string };

  constructor(
    private readonly echo: ResponseEcho,
    private readonly tools: ResponseTools['namespaced'],
    private readonly send: (event: ResponseEvent) => void,
  ) {}

  started(): void {
    const response = responseObject(this.echo, { status: 'in_progress', output: [] });
    this.emit('response.created', { response });
    this.emit('response.in_progress', { response });
  }

  text(delta: string): void {
    if (delta === '') return;
    const message = this.openMessage();
    message.text += delta;
    this.emit('response.output_text.delta', { item_id: message.id, output_index: message.index, content_index: 0, delta, logprobs: [] });
  }

  /** Closes the open items, adds the function calls, and ends with the final response. */
  finished(result: GenerateResult): ResponseObject {
    if (!this.message && result.toolCalls.length === 0) this.openMessage();
    this.closeMessage(result.finishReason === 'length' ? 'incomplete' : 'completed');
    for (const call of result.toolCalls) {
      const id = itemId('fc');
      const index = this.output.length;
      const name = clientToolName(this.tools, call.name);
      const done = functionCallItem(id, call, name, 'completed');
      this.emit('response.output_item.added', { output_index: index, item: functionCallItem(id, call, name, 'in_progress') });
      this.emit('response.function_call_arguments.delta', { item_id: id, output_index: index, delta: done.arguments });
      this.emit('response.function_call_arguments.done', { item_id: id, output_index: index, name: done.name, arguments: done.arguments });
      this.emit('response.output_item.done', { output_index: index, item: done });
      this.output.push(done);
    }
    const response = this.final({ status: result.finishReason === 'length' ? 'incomplete' : 'completed', usage: result.usage });
    this.emit(response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
    return response;
  }

  /**
   * A failure after the stream started: `response.failed` (Codex reads it) and an `error` event
   * (the SDKs raise it). A cancelled response ends with `response.failed` alone, status `cancelled`.
   */
  failed(error: { code: string; message: string; param?: string | null }, status: 'failed' | 'cancelled' = 'failed'): ResponseObject {
    const response = this.final({ status, error: { code: error.code, message: error.message } });
    this.emit('response.failed', { response });
    if (status === 'failed') this.emit('error', { code: error.code, message: error.message, param: error.param ?? null });
    return response;
  }

  private final(state: Omit<ResponseState, 'output'>): ResponseObject {
    return responseObject(this.echo, { ...state, output: this.output });
  }

  private openMessage(): { id: string; index: number; text: string } {
    if (this.message) return this.message;
    this.message = { id: itemId('msg'), index: this.output.length, text: '' };
    const { id, index } = this.message;
    this.emit('response.output_item.added', { output_index: index, item: messageItem(id, undefined, 'in_progress') });
    this.emit('response.content_part.added', { item_id: id, output_index: index, content_index: 0, part: outputText('') });
    return this.message;
  }

  private closeMessage(status: 'completed' | 'incomplete'): void {
    if (!this.message) return;
    const { id, index, text } = this.message;
    const item = messageItem(id, text, status);
    this.emit('response.output_text.done', { item_id: id, output_index: index, content_index: 0, text, logprobs: [] });
    this.emit('response.content_part.done', { item_id: id, output_index: index, content_index: 0, part: outputText(text) });
    this.emit('response.output_item.done', { output_index: index, item });
    this.output.push(item);
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    this.send({ type, sequence_number: this.sequence++, ...fields });
  }
}

/** The whole response of a non-streamed request: the same items the stream would have made. */
export function completedResponse(echo: ResponseEcho, tools: ResponseTools['namespaced'], result: GenerateResult): ResponseObject {
  const writer = new ResponseEventWriter(echo, tools, () => undefined);
  if (result.text !== '') writer.text(result.text);
  return writer.finished(result);
}
