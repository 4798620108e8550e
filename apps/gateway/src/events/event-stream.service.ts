import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { StoredSessionEvent } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import { CredentialWatch } from '../auth/credential-watch';
import type { Principal } from '../auth/principal';
import { LOGGER } from '../infra/tokens';
import { EventLogRepository } from './event-log.repository';
import { KEEP_ALIVE_MS, SSE_HEADERS, formatSseComment, formatSseEvent } from './sse';

const REPLAY_BATCH = 500;
/** Also how long a stream goes without re-checking its key when no event and no notice comes. */
const BLOCK_MS = 5_000;

/**
 * Serves a session's log over SSE: the stored events after a given id, then new ones live, for as
 * long as the key it was opened with still allows: a revoked key or a disabled user ends it, at
 * once on a notice from any replica, and before any further event is written in any case.
 */
@Injectable()
export class EventStreamService implements OnModuleDestroy {
  private readonly open = new Set<(reason?: string) => void>();

  constructor(
    private readonly log: EventLogRepository,
    private readonly credentials: CredentialWatch,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async stream(req: Request, res: Response, sessionId: string, afterId: string, principal: Principal): Promise<void> {
    res.status(200).set(SSE_HEADERS);
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const connection = this.log.dedicatedConnection();
    let closed = false;
    const keepAlive = setInterval(() => res.write(formatSseComment('keep-alive')), KEEP_ALIVE_MS);
    const close = (reason?: string) => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      connection.disconnect();
      // A comment: clients ignore it, a person reading the stream sees why it ended.
      if (reason) res.write(formatSseComment(`closed: ${reason}`));
      res.end();
    };
    this.open.add(close);
    req.on('close', () => close());
    let unwatch: (() => void) | undefined;
    // The key is read again before each write: a notice can arrive after the events it should stop.
    const write = async (events: StoredSessionEvent[]) => {
      const refusal = await this.credentials.refusal(principal);
      if (refusal) return close(refusal);
      if (closed) return;
      for (const event of events) res.write(formatSseEvent(event));
      return events.at(-1)?.id;
    };
    try {
      unwatch = await this.credentials.watch(principal, close);
      let last = afterId;
      for (let batch = await this.log.rangeAfter(sessionId, last, REPLAY_BATCH); !closed; ) {
        last = (await write(batch)) ?? last;
        if (batch.length < REPLAY_BATCH) break;
        batch = await this.log.rangeAfter(sessionId, last, REPLAY_BATCH);
      }
      while (!closed) last = (await write(await this.log.waitAfter(connection, sessionId, last, BLOCK_MS))) ?? last;
    } catch (err) {
      if (!closed) this.logger.error({ err, sessionId }, 'event stream failed');
    } finally {
      unwatch?.();
      this.open.delete(close);
      close();
    }
  }

  /** Ends open streams so the HTTP server can close; clients reconnect with Last-Event-ID. */
  onModuleDestroy(): void {
    for (const close of [...this.open]) close();
  }
}
