import type { EventRoute } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { z } from 'zod';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Plain NATS for fire-and-forget events (cancel requests, heartbeats): JSON bodies validated
 * against the route's schema, and subscriptions without a queue group, so that every worker sees
 * every message. Nest's transport puts all of its handlers in the service's queue group.
 */
export class NatsEventBus {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, name: string, log: Logger): Promise<NatsEventBus> {
    const connection = await connect({ servers: [url], name, maxReconnectAttempts: -1 });
    return new NatsEventBus(connection, log);
  }

  publish<P extends z.ZodType>(route: EventRoute<P>, payload: z.input<P>): void {
    const body = route.request.parse(payload);
    this.connection.publish(route.subject, encoder.encode(JSON.stringify(body)));
  }

  /** Calls `handler` with each valid message; invalid ones are logged and dropped. */
  subscribe<P extends z.ZodType>(route: EventRoute<P>, handler: (payload: z.infer<P>) => void): Subscription {
    return this.connection.subscribe(route.subject, {
      callback: (error, message) => {
        if (error) {
          this.log.warn({ err: error, subject: route.subject }, 'subscription error');
          return;
        }
        const parsed = route.request.safeParse(parseJson(decoder.decode(message.data)));
        if (!parsed.success) {
          this.log.warn({ subject: route.subject, problems: parsed.error.issues.length }, 'dropping an invalid event');
          return;
        }
        handler(parsed.data);
      },
    });
  }

  /** Sends what is buffered, then waits for the server to have it. */
  async flush(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.flush();
  }

  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    await this.connection.drain();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
