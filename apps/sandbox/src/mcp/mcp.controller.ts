import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { z } from 'zod';
import { StdioMcpServers } from './stdio-servers';

type ListRequest = z.infer<(typeof Routes)['sandboxMcpListTools']['request']>;
type CallRequest = z.infer<(typeof Routes)['sandboxMcpCallTool']['request']>;
type StateRequest = z.infer<(typeof Routes)['sandboxMcpServerState']['request']>;

@Controller()
export class McpController {
  constructor(private readonly servers: StdioMcpServers) {}

  @MessagePattern(Routes.sandboxMcpListTools.subject)
  async listTools(@Payload(new ZodPayloadPipe(Routes.sandboxMcpListTools.request)) request: ListRequest) {
    return { tools: await this.servers.listTools(request) };
  }

  @MessagePattern(Routes.sandboxMcpServerState.subject)
  state(@Payload(new ZodPayloadPipe(Routes.sandboxMcpServerState.request)) request: StateRequest) {
    return this.servers.state(request);
  }

  @MessagePattern(Routes.sandboxMcpCallTool.subject)
  callTool(@Payload(new ZodPayloadPipe(Routes.sandboxMcpCallTool.request)) request: CallRequest) {
    const { tool, arguments: args, ...target } = request;
    return this.servers.callTool(target, tool, args);
  }
}
