import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@weft/logging';
import type { BeatFigures, BeatThreadData, FromBeatThread, ToBeatThread } from './heartbeat-thread.protocol';

/** How long an announcement (draining, stopped) may take to reach the server. */
const ANNOUNCE_TIMEOUT_MS = 5_000;

/**
 * The main loop's handle on the heartbeat thread, which beats on a NATS connection of its own so
 * that a busy main loop cannot silence the worker. The main loop hands it fresh figures each
 * interval; the thread sends the latest ones every interval, whatever the main loop is doing.
 */
export class BeatThread {
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private closed = false;

  private constructor(
    private readonly thread: Worker,
    private readonly log: Logger,
  ) {
    thread.on('message', (message: FromBeatThread) => this.settle(message));
    thread.on('error', (err) => this.log.error({ err }, 'the heartbeat thread failed; the gateway will drop this worker'));
    thread.on('exit', () => this.failPending(new Error('the heartbeat thread exited')));
  }

  static start(data: BeatThreadData, log: Logger): BeatThread {
    // Compiled `.js` in dist; the `.ts` source, type-stripped by Node, under the tests.
    const entry = join(__dirname, `heartbeat-thread${extname(__filename)}`);
    const thread = new Worker(entry, { workerData: data });
    // The process may end without closing it (a crash): the thread must not keep it alive.
    thread.unref();
    return new BeatThread(thread, log);
  }

  /** The figures the next beats carry. */
  update(figures: BeatFigures): void {
    this.post({ type: 'figures', figures });
  }

  /** No beats until the next `update` (the worker's server is not connected). */
  pause(): void {
    this.post({ type: 'pause' });
  }

  /** Sends these figures at once and waits until the server has them (draining, stopped). */
  announce(figures: BeatFigures): Promise<void> {
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.settle({ type: 'failed', id, message: `no answer within ${ANNOUNCE_TIMEOUT_MS} ms` }), ANNOUNCE_TIMEOUT_MS);
      this.pending.set(id, {
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.post({ type: 'figures', figures, id });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.thread.terminate();
  }

  private post(message: ToBeatThread): void {
    if (!this.closed) this.thread.postMessage(message);
  }

  private settle(message: FromBeatThread): void {
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (message.type === 'sent') pending.resolve();
    else pending.reject(new Error(`heartbeat not sent: ${message.message}`));
  }

  private failPending(error: Error): void {
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
