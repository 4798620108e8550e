import type { ClientProxy } from '@nestjs/microservices';
import { EmptyResponseException } from '@nestjs/microservices/errors/empty-response.exception';
import { AppError, ErrorCode, isWireError, type Route } from '@weft/contracts';
import { Observable, TimeoutError, firstValueFrom, timeout } from 'rxjs';
import type { z } from 'zod';
import { withTraceHeaders } from './trace-headers';

export interface RequestOptions {
  /** Overall deadline for a single reply, or the gap allowed between two streamed messages. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * The one way feature code talks to another service: validates the payload before sending and
 * the reply after receiving, always applies a timeout, and turns wire errors back into AppError.
 */
export class RpcClient {
  constructor(
    private readonly proxy: ClientProxy,
    private readonly defaultTimeoutMs: number,
  ) {}

  async request<Req extends z.ZodType, Res extends z.ZodType>(
    route: Route<Req, Res>,
    payload: z.input<Req>,
    options: RequestOptions = {},
  ): Promise<z.infer<Res>> {
    const body = parseOrThrow(route.request, payload, `request to ${route.subject}`);
    const ms = options.timeoutMs ?? this.defaultTimeoutMs;
    try {
      const reply = await firstValueFrom(this.proxy.send(route.subject, withTraceHeaders(body)).pipe(timeout({ first: ms })));
      return parseOrThrow(route.response, reply, `reply from ${route.subject}`);
    } catch (error) {
      throw toAppError(error, route.subject, ms);
    }
  }

  /** A streamed reply as an async iterable; the stream ends when the server completes it. */
  async *stream<Req extends z.ZodType, Res extends z.ZodType>(
    route: Route<Req, Res>,
    payload: z.input<Req>,
    options: RequestOptions = {},
  ): AsyncGenerator<z.infer<Res>> {
    const body = parseOrThrow(route.request, payload, `request to ${route.subject}`);
    const ms = options.timeoutMs ?? this.defaultTimeoutMs;
    const source = this.proxy.send(route.subject, withTraceHeaders(body)).pipe(timeout({ each: ms }));
    try {
      for await (const message of observableToIterable(source, options.signal)) {
        yield parseOrThrow(route.response, message, `stream message from ${route.subject}`);
      }
    } catch (error) {
      throw toAppError(error, route.subject, ms);
    }
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new AppError(ErrorCode.ValidationFailed, `Invalid ${what}: ${problems.join('; ')}`, { problems });
}

function toAppError(error: unknown, subject: string, ms: number): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof TimeoutError) {
    return new AppError(ErrorCode.Timeout, `No reply from ${subject} within ${ms} ms`, { subject }, true);
  }
  if (error instanceof EmptyResponseException) {
    return new AppError(ErrorCode.NoResponders, `No worker is listening on ${subject}`, { subject }, true);
  }
  if (isWireError(error)) return AppError.fromWire(error);
  // Nest's client rejects with a bare string, before sending anything, while its connection to
  // NATS is down: nothing ran, so it is as retryable as a subject nobody listens on (not a 500).
  if (typeof error === 'string') {
    return new AppError(ErrorCode.NoResponders, `Request to ${subject} not sent: NATS is unreachable (${error})`, { subject, natsUnreachable: true }, true);
  }
  const message = error instanceof Error ? error.message : JSON.stringify(error);
  return new AppError(ErrorCode.Internal, `Request to ${subject} failed: ${message}`, { subject }, false, {
    cause: error,
  });
}

/** Bridges rxjs to `for await`, buffering messages that arrive faster than they are consumed. */
async function* observableToIterable<T>(source: Observable<T>, signal?: AbortSignal): AsyncGenerator<T> {
  const buffer: T[] = [];
  let done = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const subscription = source.subscribe({
    next: (value) => {
      buffer.push(value);
      notify();
    },
    error: (error: unknown) => {
      failure = error;
      done = true;
      notify();
    },
    complete: () => {
      done = true;
      notify();
    },
  });
  const onAbort = () => {
    subscription.unsubscribe();
    notify();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (true) {
      if (buffer.length > 0) {
        yield buffer.shift() as T;
        continue;
      }
      if (failure !== undefined) throw failure;
      if (done) return;
      if (signal?.aborted) return;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    subscription.unsubscribe();
  }
}

export { toAppError };
