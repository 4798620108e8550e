import { Module } from '@nestjs/common';
import { SessionsModule } from '../sessions/sessions.module';
import { McpController } from './mcp.controller';
import { McpService } from './mcp.service';
import { MyMcpController } from './my-mcp.controller';
import { UserMcpRepository } from './user-mcp.repository';

@Module({
  imports: [SessionsModule],
  controllers: [McpController, MyMcpController],
  providers: [McpService, UserMcpRepository],
  exports: [McpService],
})
export class McpModule {}
