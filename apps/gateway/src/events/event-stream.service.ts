import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { StoredSessionEvent } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { Request, Response } from 'express';
import { LOGGER } from '../infra/tokens';
import { EventLogRepository } from './event-log.repository';
import { KEEP_ALIVE_MS, SSE_HEADERS, formatSseComment, formatSseEvent } from './sse';

const REPLAY_BATCH = 500;
const BLOCK_MS = 10_000;

/** Serves a session's log over SSE: the stored events after a given id, then new ones live. */
@Injectable()
export class EventStreamService implements OnModuleDestroy {
  private readonly open = new Set<() => void>();

  constructor(
    private readonly log: EventLogRepository,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async stream(req: Request, res: Response, sessionId: string, afterId: string): Promise<void> {
    res.status(200).set(SSE_HEADERS);
    res.flushHeaders();
    res.socket?.setNoDelay(true);
    const connection = this.log.dedicatedConnection();
    let closed = false;
    const keepAlive = setInterval(() => res.write(formatSseComment('keep-alive')), KEEP_ALIVE_MS);
    const close = () => {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      connection.disconnect();
      res.end();
    };
    this.open.add(close);
    req.on('close', close);
    const write = (events: StoredSessionEvent[]) => {
      for (const event of events) res.write(formatSseEvent(event));
      return events.at(-1)?.id;
    };
    try {
      let last = afterId;
      for (let batch = await this.log.rangeAfter(sessionId, last, REPLAY_BATCH); !closed; ) {
        last = write(batch) ?? last;
        if (batch.length < REPLAY_BATCH) break;
        batch = await this.log.rangeAfter(sessionId, last, REPLAY_BATCH);
      }
      while (!closed) last = write(await this.log.waitAfter(connection, sessionId, last, BLOCK_MS)) ?? last;
    } catch (err) {
      if (!closed) this.logger.error({ err, sessionId }, 'event stream failed');
    } finally {
      this.open.delete(close);
      close();
    }
  }

  /** Ends open streams so the HTTP server can close; clients reconnect with Last-Event-ID. */
  onModuleDestroy(): void {
    for (const close of [...this.open]) close();
  }
}
