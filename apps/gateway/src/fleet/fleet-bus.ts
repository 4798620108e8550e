import type { EventRoute } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { connect, type NatsConnection, type Subscription } from 'nats';
import type { z } from 'zod';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The gateway's plain-NATS link to the inference fleet: heartbeats in, cancel requests out.
 * JSON bodies validated against the event's schema; no queue group, so every replica hears
 * every worker.
 */
export class FleetBus {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly log: Logger,
  ) {}

  static async connect(url: string, log: Logger): Promise<FleetBus> {
    return new FleetBus(await connect({ servers: [url], name: 'gateway-fleet', maxReconnectAttempts: -1 }), log);
  }

  publish<P extends z.ZodType>(route: EventRoute<P>, payload: z.input<P>): void {
    if (this.connection.isClosed() || this.connection.isDraining()) return;
    this.connection.publish(route.subject, encoder.encode(JSON.stringify(route.request.parse(payload))));
  }

  subscribe<P extends z.ZodType>(route: EventRoute<P>, handler: (payload: z.infer<P>) => void): Subscription {
    return this.connection.subscribe(route.subject, {
      callback: (error, message) => {
        if (error) {
          this.log.warn({ err: error, subject: route.subject }, 'fleet subscription error');
          return;
        }
        let body: unknown;
        try {
          body = JSON.parse(decoder.decode(message.data));
        } catch (parseError) {
          this.log.warn({ err: parseError, subject: route.subject }, 'dropping a fleet message that is not JSON');
          return;
        }
        const parsed = route.request.safeParse(body);
        if (parsed.success) handler(parsed.data);
        else this.log.warn({ subject: route.subject }, 'dropping an invalid fleet message');
      },
    });
  }

  async flush(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.flush();
  }

  async close(): Promise<void> {
    if (!this.connection.isClosed()) await this.connection.drain();
  }
}
