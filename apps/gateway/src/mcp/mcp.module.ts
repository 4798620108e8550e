import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { McpController } from './mcp.controller';
import { McpSandboxMeter } from './mcp-sandbox-meter';
import { McpService } from './mcp.service';
import { MyMcpController } from './my-mcp.controller';
import { UserMcpRepository } from './user-mcp.repository';

@Module({
  imports: [SessionsModule],
  controllers: [McpController, MyMcpController],
  providers: [McpService, McpSandboxMeter, UserMcpRepository],
  exports: [McpService],
})
export class McpModule {}
