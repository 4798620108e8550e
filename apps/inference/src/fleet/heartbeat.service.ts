import { hostname } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import { Routes, type WorkerHeartbeat } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { InferenceService } from '../generate/inference.service';
import { EVENT_BUS, INFERENCE_CONFIG, LOGGER, SERVER_LINK, WORKER_IDENTITY, type ServerLink, type WorkerIdentity } from '../tokens';
import { NatsEventBus } from '@weft/messaging';

/**
 * Announces the worker every HEARTBEAT_INTERVAL_MS: its models, free sequences and cached
 * sessions. On SIGTERM it announces `draining` (the gateway stops routing here), lets the
 * running generations finish, then says `stopped`.
 */
@Injectable()
export class HeartbeatService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private status: WorkerHeartbeat['status'] = 'ready';

  constructor(
    @Inject(EVENT_BUS) private readonly bus: NatsEventBus,
    @Inject(INFERENCE_CONFIG) private readonly config: InferenceConfig,
    @Inject(WORKER_IDENTITY) private readonly worker: WorkerIdentity,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(SERVER_LINK) private readonly server: ServerLink,
    private readonly inference: InferenceService,
  ) {}

  onApplicationBootstrap(): void {
    const beat = () => {
      this.announce().catch((err: unknown) => this.log.warn({ err }, 'heartbeat failed'));
      if (this.status === 'stopped') return;
      this.timer = setTimeout(beat, this.config.HEARTBEAT_INTERVAL_MS);
      this.timer.unref();
    };
    beat();
  }

  /** Drains before Nest closes the NATS server, so in-flight replies still reach their callers. */
  async beforeApplicationShutdown(): Promise<void> {
    this.status = 'draining';
    await this.announce().catch((err: unknown) => this.log.warn({ err }, 'could not announce draining'));
    await this.inference.drain(this.config.DRAIN_TIMEOUT_MS);
    // Nest publishes a stream's last messages on a later tick: let it, then push them out.
    await setImmediate();
    await this.server.flush().catch((err: unknown) => this.log.warn({ err }, 'could not flush the last replies'));
  }

  /** Stops the beat and says `stopped`; the gateway drops the worker at once. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.status = 'stopped';
    await this.announce().catch((err: unknown) => this.log.warn({ err }, 'could not announce stop'));
  }

  async announce(): Promise<void> {
    // Not before the server's subscriptions are live: the gateway would route to a deaf worker.
    if (this.status === 'ready' && !(await this.server.flush())) return;
    const heartbeat: WorkerHeartbeat = {
      workerId: this.worker.workerId,
      host: hostname(),
      status: this.inference.isDraining && this.status === 'ready' ? 'draining' : this.status,
      intervalMs: this.config.HEARTBEAT_INTERVAL_MS,
      startedAt: this.worker.startedAt,
      sentAt: new Date().toISOString(),
      inFlight: this.inference.running,
      models: await this.inference.status(),
    };
    const gpu = await this.inference.gpu();
    if (gpu) heartbeat.gpu = gpu;
    this.bus.publish(Routes.inferenceWorkerAnnounced, heartbeat);
    await this.bus.flush();
  }
}
