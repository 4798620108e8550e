import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Routes, type AdminModel, type ModelSettings, type PullLine, type PullModelBody, type PullProgress } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import type { Response } from 'express';
import type { AdminActor } from '../auth/admin-actor';
import { AdminAudit } from '../auth/admin-audit';
import { LOGGER } from '../infra/tokens';
import { ModelsService } from './models.service';

/** The longest a pull may go without a message from its worker (progress comes twice a second). */
const PULL_SILENCE_MS = 120_000;
/** How long a pulled model may take to show in the fleet's heartbeats (a removed one to leave them) before the answer is sent anyway. */
const SERVED_WITHIN_MS = 15_000;

/**
 * Relays `weft admin models` to the inference workers. A pull answers NDJSON: the worker's progress
 * lines, then `done` once the gateway's own model list serves the model (so the client can use it at
 * once), or an `error` line. A pull that fails before it starts is a plain error answer.
 */
@Injectable()
export class AdminModelsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly models: ModelsService,
    private readonly audit: AdminAudit,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  list(): Promise<{ models: AdminModel[] }> {
    return this.rpc.request(Routes.inferenceModelsList, {});
  }

  async pull(actor: AdminActor, body: PullModelBody, res: Response): Promise<void> {
    const stop = new AbortController();
    res.on('close', () => stop.abort());
    const stream = this.rpc.stream(Routes.inferenceModelsPull, body, { timeoutMs: PULL_SILENCE_MS, signal: stop.signal });
    // The first message decides between an error status and a 200 stream.
    const first = await stream.next();
    res.status(200).type('application/x-ndjson; charset=utf-8');
    res.flushHeaders();
    const write = (line: PullLine) => res.write(`${JSON.stringify(line)}\n`);
    try {
      if (!first.done) await this.relay(first.value, write);
      for await (const message of stream) await this.relay(message, write);
      await this.audit.record(actor, 'model.pulled', undefined, { source: body.source, id: body.id });
    } catch (error) {
      const wire = error instanceof AppError ? error : new AppError(ErrorCode.Internal, 'The pull failed', {}, false, { cause: error });
      if (!(error instanceof AppError)) this.log.error({ err: error }, 'model pull failed');
      write({ type: 'error', error: { code: wire.code, message: wire.message, ...(wire.details ? { details: wire.details } : {}) } });
    } finally {
      res.end();
    }
  }

  async set(actor: AdminActor, id: string, settings: ModelSettings): Promise<AdminModel> {
    const model = await this.rpc.request(Routes.inferenceModelsSet, { id, settings });
    await this.audit.record(actor, 'model.set', undefined, { id, settings });
    return model;
  }

  async remove(actor: AdminActor, id: string, keepFile: boolean): Promise<{ id: string; fileRemoved: boolean }> {
    const removed = await this.rpc.request(Routes.inferenceModelsRemove, { id, keepFile });
    await this.audit.record(actor, 'model.removed', undefined, { id, fileRemoved: removed.fileRemoved });
    // Answered once the model list no longer offers it: a listing right after shows it gone.
    await this.servedSoon(id, false);
    return removed;
  }

  private async relay(message: PullProgress, write: (line: PullLine) => void): Promise<void> {
    if (message.type === 'done') await this.servedSoon(message.model.id);
    write(message);
  }

  /** Waits for the fleet's heartbeats to list the model (or, removed, to no longer list it), so the next request sees it so. */
  private async servedSoon(id: string, served = true): Promise<void> {
    const deadline = Date.now() + SERVED_WITHIN_MS;
    while (Date.now() < deadline) {
      const { models } = await this.models.list().catch(() => ({ models: [] }));
      if (models.some((model) => model.id === id) === served) return;
      await sleep(250);
    }
    this.log.warn({ model: id, served }, served ? 'a pulled model is not in the fleet heartbeats yet' : 'a removed model is still in the fleet heartbeats');
  }
}
