import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { EventRoute, ServiceHeartbeat, serviceHeartbeatSchema } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { NatsEventBus } from './event-bus';
import type { NatsServer } from './nats-server';

export interface ServiceHeartbeatOptions {
  nats: NatsServer;
  /** `Routes.toolsWorkerAnnounced` or `Routes.sandboxWorkerAnnounced`. */
  route: EventRoute<typeof serviceHeartbeatSchema>;
  intervalMs: number;
  /** For the connection's name and the log. */
  service: string;
}

/**
 * Announces a tools or sandbox worker every `intervalMs`, over a connection of its own, so the
 * gateway can fail a call in flight to a worker that died instead of waiting out the call's
 * timeout. Beats leave from the main loop: these workers await I/O (files, Docker) and do not
 * block it for seconds, and a long command is awaited, not run here, so it does not silence them.
 * No goodbye on shutdown: it would race the last replies (another connection); the gateway
 * notices the silence within three beats, by when those replies are in.
 */
export class ServiceHeartbeatPublisher implements OnApplicationBootstrap, OnApplicationShutdown {
  /** The host name (a container's id) plus a nonce: ids must not collide across replicas or restarts. */
  readonly workerId = `${hostname().replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40)}-${randomBytes(4).toString('hex')}`;
  private readonly startedAt = new Date().toISOString();
  private bus?: NatsEventBus;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly options: ServiceHeartbeatOptions,
    private readonly log: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.bus = await NatsEventBus.connect(this.options.nats, `${this.options.service}-${this.workerId}-heartbeat`, this.log);
    this.beat();
    this.timer = setInterval(() => this.beat(), this.options.intervalMs);
    this.timer.unref();
    this.log.info({ workerId: this.workerId, intervalMs: this.options.intervalMs }, 'heartbeat started');
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.bus?.close();
  }

  private beat(): void {
    const now = new Date().toISOString();
    const heartbeat: ServiceHeartbeat = { workerId: this.workerId, intervalMs: this.options.intervalMs, startedAt: this.startedAt, sentAt: now };
    this.bus?.publish(this.options.route, heartbeat);
  }
}
