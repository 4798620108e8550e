import { type DynamicModule, Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { AccountingModule } from './accounting/accounting.module';
import { AgentModule } from './agent/agent.module';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CompatModule } from './compat/compat.module';
import type { GatewaySettings } from './config';
import { ApiDocsModule } from './api-docs/openapi.controller';
import { HealthModule } from './health/health.module';
import { InfraModule } from './infra/infra.module';
import { InstructionsModule } from './instructions/instructions.module';
import { ModelsModule } from './models/models.module';
import { NotesModule } from './notes/notes.module';
import { PermissionsModule } from './permissions/permissions.module';
import { SessionsModule } from './sessions/sessions.module';
import { StorageModule } from './storage/storage.module';
import { UsersModule } from './users/users.module';
import { WebModule } from './web/web.module';
import { WorkspacesModule } from './workspaces/workspaces.module';

@Module({})
export class AppModule {
  static forRoot(config: GatewaySettings, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        InfraModule.forRoot(config, logger),
        StorageModule,
        AuthModule,
        AccountingModule,
        UsersModule,
        AuditModule,
        WorkspacesModule,
        ModelsModule,
        SessionsModule,
        PermissionsModule,
        InstructionsModule,
        NotesModule,
        AgentModule,
        CompatModule,
        HealthModule,
        ApiDocsModule,
        WebModule,
      ],
    };
  }
}
