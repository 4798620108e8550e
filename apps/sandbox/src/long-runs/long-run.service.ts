import { Inject, Injectable } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import {
  AppError,
  ErrorCode,
  type ExecResult,
  type RunOutputMessage,
  type SandboxJob,
  runOutputMessageSchema,
  sandboxRunOutputSubject,
} from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ExecService } from '../exec/exec.service';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { OutputBatcher } from './output-batcher';
import { RunCancellations } from './run-cancellations';
import { NatsEventBus } from '@weft/messaging';

/**
 * Runs one long run with the same hardening as any other (it goes through ExecService),
 * publishing on the run's subject: `started`, output chunks as they come, then the `result` or
 * why it `failed`. A cancel kills its container.
 */
@Injectable()
export class LongRunService {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    private readonly exec: ExecService,
    private readonly bus: NatsEventBus,
    private readonly cancellations: RunCancellations,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(job: SandboxJob): Promise<ExecResult> {
    const { runId, request } = job;
    const log = this.logger.child({ runId, sessionId: job.sessionId, turnId: job.turnId });
    const publish = (message: RunOutputMessage) =>
      this.bus.publishTo(sandboxRunOutputSubject(runId), runOutputMessageSchema, message);
    const signal = this.cancellations.begin(runId);
    try {
      if (!signal) throw new AppError(ErrorCode.SandboxCancelled, 'The run was cancelled before it started');
      publish({ type: 'started', runId, timeoutMs: request.timeoutMs ?? this.config.SANDBOX_TIMEOUT_MS });
      const batcher = new OutputBatcher({
        maxBytesPerStream: this.config.SANDBOX_OUTPUT_MAX_BYTES,
        send: (stream, text) => publish({ type: 'chunk', runId, stream, text }),
      });
      let result: ExecResult;
      try {
        result = await this.exec.run(request, { signal, onOutput: (stream, chunk) => batcher.push(stream, chunk) });
      } finally {
        batcher.end();
      }
      publish({ type: 'result', runId, result });
      return result;
    } catch (error) {
      const wire = error instanceof AppError ? error.toWire() : { code: ErrorCode.Internal, message: 'The long run failed' };
      if (!(error instanceof AppError)) log.error({ err: error }, 'long run failed');
      publish({ type: 'failed', runId, error: wire });
      throw error;
    } finally {
      this.cancellations.end(runId);
      await this.bus.flush().catch((error: unknown) => log.warn({ err: error }, 'could not flush a long run\'s messages'));
    }
  }
}
