import type { EventRoute } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { z } from 'zod';
import { natsConnectOptions, type NatsServer } from './nats-server';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Plain NATS for what Nest's transport cannot do: fire-and-forget events every replica must
 * hear (cancel requests, heartbeats; Nest puts all handlers in the service's queue group) and
 * messages on per-run subjects. JSON bodies, validated against the contract's schema on both ends.
 */
export class NatsEventBus {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly log: Logger,
    /** Whether `close` drains the connection; a borrowed one is closed by its owner. */
    private readonly owned: boolean,
  ) {}

  static async connect(server: NatsServer, name: string, log: Logger): Promise<NatsEventBus> {
    return new NatsEventBus(await connect({ ...natsConnectOptions(server), name }), log, true);
  }

  /** Events over a connection the caller already holds (one connection per process). */
  static over(connection: NatsConnection, log: Logger): NatsEventBus {
    return new NatsEventBus(connection, log, false);
  }

  publish<P extends z.ZodType>(route: EventRoute<P>, payload: z.input<P>): void {
    this.publishTo(route.subject, route.request, payload);
  }

  /** For subjects made per message (a long run's output); nothing is sent once the bus is closing. */
  publishTo<S extends z.ZodType>(subject: string, schema: S, payload: z.input<S>): void {
    if (this.connection.isClosed() || this.connection.isDraining()) return;
    this.connection.publish(subject, encoder.encode(JSON.stringify(schema.parse(payload))));
  }

  /** Calls `handler` with each valid message; invalid ones are logged and dropped. */
  subscribe<P extends z.ZodType>(route: EventRoute<P>, handler: (payload: z.infer<P>) => void): Subscription {
    return this.connection.subscribe(route.subject, {
      callback: (error, message) => {
        if (error) {
          this.log.warn({ err: error, subject: route.subject }, 'event subscription error');
          return;
        }
        const parsed = route.request.safeParse(parseJson(decoder.decode(message.data)));
        if (parsed.success) handler(parsed.data);
        else this.log.warn({ subject: route.subject }, 'dropping an invalid event (not JSON, or not its schema)');
      },
    });
  }

  /** Sends what is buffered, then waits for the server to have it. */
  async flush(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.flush();
  }

  async close(): Promise<void> {
    if (this.owned && !this.connection.isClosed()) await this.connection.drain();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
