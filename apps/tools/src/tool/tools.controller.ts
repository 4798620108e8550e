import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import { ToolsMetrics } from '../metrics/tools-metrics';
import { ToolRegistry } from './tool-registry';

@Controller()
export class ToolsController {
  constructor(
    @Inject(ToolRegistry) private readonly registry: ToolRegistry,
    @Inject(ToolsMetrics) private readonly metrics: ToolsMetrics,
  ) {}

  @MessagePattern(Routes.toolsCall.subject)
  call(@Payload(new ZodPayloadPipe(Routes.toolsCall.request)) request: ToolCallRequest): Promise<ToolCallResult> {
    return this.metrics.track(request.tool, () => this.registry.call(request));
  }
}
