import { AppError, ErrorCode } from '@weft/contracts';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Gives up when the endpoint sends nothing (not even the first byte) for this long. */
  timeoutMs: number;
  provider: string;
  model: string;
}

/**
 * POSTs JSON and yields the server-sent events of the reply. HTTP and network failures are
 * INFERENCE.PROVIDER_FAILED (retryable for 429, 5xx and the network); `classify` turns an error
 * body into a more precise error first (a context overflow, say).
 */
export async function* postForEvents(
  request: StreamRequest,
  classify: (status: number, body: string) => AppError | undefined = () => undefined,
): AsyncGenerator<EventSourceMessage> {
  const idle = new AbortController();
  const signal = AbortSignal.any([request.signal, idle.signal]);
  let timer = setTimeout(() => idle.abort(), request.timeoutMs);
  const rearm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => idle.abort(), request.timeoutMs);
  };
  try {
    let response: Response;
    try {
      response = await fetch(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...request.headers },
        body: JSON.stringify(request.body),
        signal,
      });
    } catch (error) {
      throw failure(request, error, idle.signal.aborted);
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw (
        classify(response.status, text) ??
        new AppError(
          ErrorCode.ProviderFailed,
          `${request.provider} answered HTTP ${response.status} for model "${request.model}": ${text.slice(0, 500)}`,
          { provider: request.provider, model: request.model, status: response.status },
          response.status === 429 || response.status >= 500,
        )
      );
    }
    const events: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => events.push(event) });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        rearm();
        parser.feed(decoder.decode(chunk, { stream: true }));
        yield* events.splice(0);
      }
    } catch (error) {
      throw failure(request, error, idle.signal.aborted);
    }
    yield* events.splice(0);
  } finally {
    clearTimeout(timer);
  }
}

function failure(request: StreamRequest, error: unknown, idle: boolean): unknown {
  if (request.signal.aborted) return request.signal.reason ?? error;
  const reason = idle ? `no data for ${request.timeoutMs} ms` : describe(error);
  return new AppError(
    ErrorCode.ProviderFailed,
    `${request.provider} endpoint for model "${request.model}" failed: ${reason}`,
    { provider: request.provider, model: request.model },
    true,
    { cause: error },
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string } | undefined;
  return cause?.code ? `${error.message} (${cause.code})` : error.message;
}

/** JSON of one event's data, or a typed error naming the provider. */
export function parseEventData<T>(event: EventSourceMessage, provider: string): T {
  try {
    return JSON.parse(event.data) as T;
  } catch (error) {
    throw new AppError(ErrorCode.ProviderFailed, `${provider} sent an event that is not JSON: ${event.data.slice(0, 200)}`, { provider }, true, {
      cause: error,
    });
  }
}
