import type { EventRoute } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { z } from 'zod';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Plain NATS for what Nest's transport cannot do: cancel requests heard by every replica (Nest
 * puts all handlers in the service's queue group) and a long run's messages on its own subject.
 * JSON bodies, validated against the contract's schema on both ends.
 */
export class SandboxBus {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, log: Logger): Promise<SandboxBus> {
    return new SandboxBus(await connect({ servers: [url], name: 'sandbox-bus', maxReconnectAttempts: -1 }), log);
  }

  publish<S extends z.ZodType>(subject: string, schema: S, payload: z.input<S>): void {
    if (this.connection.isClosed() || this.connection.isDraining()) return;
    this.connection.publish(subject, encoder.encode(JSON.stringify(schema.parse(payload))));
  }

  /** Calls `handler` with each valid message; invalid ones are logged and dropped. */
  subscribe<P extends z.ZodType>(route: EventRoute<P>, handler: (payload: z.infer<P>) => void): Subscription {
    return this.connection.subscribe(route.subject, {
      callback: (error, message) => {
        if (error) {
          this.log.warn({ err: error, subject: route.subject }, 'sandbox bus subscription error');
          return;
        }
        const parsed = route.request.safeParse(parseJson(decoder.decode(message.data)));
        if (parsed.success) handler(parsed.data);
        else this.log.warn({ subject: route.subject }, 'dropping an invalid sandbox bus message');
      },
    });
  }

  /** Sends what is buffered and waits for the server to have it. */
  async flush(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.flush();
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
