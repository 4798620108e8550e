import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import { ToolRegistry } from './tool-registry';

@Controller()
export class ToolsController {
  constructor(@Inject(ToolRegistry) private readonly registry: ToolRegistry) {}

  @MessagePattern(Routes.toolsCall.subject)
  call(@Payload(new ZodPayloadPipe(Routes.toolsCall.request)) request: ToolCallRequest): Promise<ToolCallResult> {
    return this.registry.call(request);
  }
}
