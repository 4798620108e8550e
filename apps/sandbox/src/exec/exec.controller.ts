import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type ExecResult } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { ParsedExecRequest } from './exec-request';
import { ExecService } from './exec.service';

@Controller()
export class ExecController {
  constructor(private readonly exec: ExecService) {}

  @MessagePattern(Routes.sandboxExec.subject)
  run(@Payload(new ZodPayloadPipe(Routes.sandboxExec.request)) request: ParsedExecRequest): Promise<ExecResult> {
    return this.exec.run(request);
  }
}
