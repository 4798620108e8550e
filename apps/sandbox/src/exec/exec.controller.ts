import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, ErrorCode, Routes, type ExecResult } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import { RunCancellations } from '../long-runs/run-cancellations';
import type { ParsedExecRequest } from './exec-request';
import { ExecService } from './exec.service';

@Controller()
export class ExecController {
  constructor(
    private readonly exec: ExecService,
    private readonly cancellations: RunCancellations,
  ) {}

  /**
   * A run with a `runId` can be cancelled like a long run (`weft.sandbox.v1.cancel`, seen by
   * every replica): a turn cancelled while its short command runs stops the command, instead of
   * leaving it to run on to its timeout with nobody to read its result.
   */
  @MessagePattern(Routes.sandboxExec.subject)
  async run(@Payload(new ZodPayloadPipe(Routes.sandboxExec.request)) request: ParsedExecRequest): Promise<ExecResult> {
    const { runId } = request;
    if (!runId) return this.exec.run(request);
    const signal = this.cancellations.begin(runId);
    if (!signal) throw new AppError(ErrorCode.SandboxCancelled, 'The command was cancelled before it started');
    try {
      return await this.exec.run(request, { signal });
    } finally {
      this.cancellations.end(runId);
    }
  }
}
