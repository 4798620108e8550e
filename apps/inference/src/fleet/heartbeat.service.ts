import { hostname } from 'node:os';
import { setImmediate } from 'node:timers/promises';
import { type BeforeApplicationShutdown, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import { Routes, inferenceWorkerAliveSubject, workerHeartbeatSchema, type WorkerHeartbeat } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { natsConnectOptions, natsServerFrom } from '@weft/messaging';
import { InferenceService } from '../generate/inference.service';
import { INFERENCE_CONFIG, LOGGER, SERVER_LINK, WORKER_IDENTITY, type ServerLink, type WorkerIdentity } from '../tokens';
import { BeatThread } from './beat-thread';
import type { BeatFigures } from './heartbeat-thread.protocol';

/**
 * A main loop that has not refreshed the beat's figures for this long is wedged, not busy: the
 * thread stops beating (and answers probes "wedged"), and the gateway drops the worker. As long as
 * the gateway's own wait on a generation's stream (INFERENCE_TIMEOUT_MS, 5 min): a minute was
 * too short on a starved box, where the soak saw a live worker's refresh held up for 68 s and its
 * running generations failed with it.
 */
export const WEDGED_AFTER_MS = 5 * 60_000;

/** A refresh slower than this is logged with where its time went: the soak's diagnosis. */
const SLOW_REFRESH_MS = 10_000;

/**
 * Announces the worker every HEARTBEAT_INTERVAL_MS: its models, free sequences and cached
 * sessions. The beats leave from a thread of their own (`BeatThread`), so a main loop busy with a
 * long synchronous step does not get a live worker dropped; the main loop only refreshes the
 * figures they carry. On SIGTERM it announces `draining` (the gateway stops routing here), lets
 * the running generations finish, then says `stopped`.
 */
@Injectable()
export class HeartbeatService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private status: WorkerHeartbeat['status'] = 'ready';
  private thread?: BeatThread;
  private announcing = false;
  private changedSince = false;

  constructor(
    @Inject(INFERENCE_CONFIG) private readonly config: InferenceConfig,
    @Inject(WORKER_IDENTITY) private readonly worker: WorkerIdentity,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(SERVER_LINK) private readonly server: ServerLink,
    private readonly inference: InferenceService,
  ) {}

  onApplicationBootstrap(): void {
    this.thread = BeatThread.start(
      {
        connect: { ...natsConnectOptions(natsServerFrom(this.config)), name: `inference-${this.worker.workerId}-heartbeat` },
        subject: Routes.inferenceWorkerAnnounced.subject,
        probeSubject: inferenceWorkerAliveSubject(this.worker.workerId),
        intervalMs: this.config.HEARTBEAT_INTERVAL_MS,
        wedgedAfterMs: WEDGED_AFTER_MS,
      },
      this.log,
    );
    // A load or unload is said at once, not at the next beat: the fleet view and the router see it now.
    this.inference.onModelsChanged(() => this.announceChange());
    // The next refresh is scheduled when this one is done: one that hangs lets the figures age.
    const refresh = () => {
      this.refresh()
        .catch((err: unknown) => this.log.warn({ err }, 'could not refresh the heartbeat'))
        .finally(() => {
          if (this.status === 'stopped') return;
          this.timer = setTimeout(refresh, this.config.HEARTBEAT_INTERVAL_MS);
          this.timer.unref();
        });
    };
    refresh();
  }

  /** Drains before Nest closes the NATS server, so in-flight replies still reach their callers. */
  async beforeApplicationShutdown(): Promise<void> {
    this.status = 'draining';
    // New work is refused before the gateway hears of it: a request sent after the announcement
    // must not be taken while the thread's answer is still on its way to this loop.
    const drained = this.inference.drain(this.config.DRAIN_TIMEOUT_MS);
    await this.announce().catch((err: unknown) => this.log.warn({ err }, 'could not announce draining'));
    await drained;
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
    await this.thread?.close();
  }

  /** Sends the current figures at once, through the thread, and waits until NATS has them. */
  async announce(): Promise<void> {
    await this.thread?.announce(await this.figures());
  }

  /** One announcement at a time; a change made while one is on its way is announced right after it. */
  private announceChange(): void {
    if (this.status !== 'ready' && this.status !== 'draining') return;
    if (this.announcing) {
      this.changedSince = true;
      return;
    }
    this.announcing = true;
    this.changedSince = false;
    this.announce()
      .catch((err: unknown) => this.log.warn({ err }, 'could not announce a model change'))
      .finally(() => {
        this.announcing = false;
        if (this.changedSince) this.announceChange();
      });
  }

  private async refresh(): Promise<void> {
    if (this.status === 'stopped') return;
    const started = performance.now();
    // Not before the server's subscriptions are live: the gateway would route to a deaf worker.
    if (this.status === 'ready' && !(await this.server.flush())) {
      this.thread?.pause();
      return;
    }
    const flushedMs = performance.now() - started;
    this.thread?.update(await this.figures());
    const tookMs = performance.now() - started;
    if (tookMs > SLOW_REFRESH_MS) {
      this.log.warn({ tookMs: Math.round(tookMs), flushMs: Math.round(flushedMs), inFlight: this.inference.running }, 'the heartbeat refresh was slow (a starved CPU or a blocked loop); beats went on from their thread');
    }
  }

  private async figures(): Promise<BeatFigures> {
    const figures: BeatFigures = {
      workerId: this.worker.workerId,
      host: hostname(),
      status: this.inference.isDraining && this.status === 'ready' ? 'draining' : this.status,
      intervalMs: this.config.HEARTBEAT_INTERVAL_MS,
      startedAt: this.worker.startedAt,
      inFlight: this.inference.running,
      models: await this.inference.status(),
    };
    const gpu = await this.inference.gpu();
    if (gpu) figures.gpu = gpu;
    const memory = this.inference.memory();
    if (memory) figures.memory = memory;
    // Checked here, where a mistake has a stack; the thread only stamps the time.
    workerHeartbeatSchema.omit({ sentAt: true, stalledMs: true }).parse(figures);
    return figures;
  }
}
