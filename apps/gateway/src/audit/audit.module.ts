import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller';
import { AuditTrailRepository } from './audit-trail.repository';
import { ToolAuditRepository } from './tool-audit.repository';

/** The audit trail admins read: tool calls written by the agent runtime, admin actions by AdminAudit. */
@Module({
  controllers: [AuditController],
  providers: [ToolAuditRepository, AuditTrailRepository],
  exports: [ToolAuditRepository],
})
export class AuditModule {}
