import { Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { TURN_LIMITS } from '../agent-core/port-tokens';
import { AuditModule } from '../audit/audit.module';
import { ChainsModule } from '../chains/chains.module';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { EventsModule } from '../events/events.module';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER } from '../infra/tokens';
import { InstructionsModule } from '../instructions/instructions.module';
import { McpModule } from '../mcp/mcp.module';
import { ModelsModule } from '../models/models.module';
import { NotesModule } from '../notes/notes.module';
import { PermissionsModule } from '../permissions/permissions.module';
import { SessionsModule } from '../sessions/sessions.module';
import { TurnControlModule } from '../turns/turn-control.module';
import { TurnQueueModule } from '../turns/turn-queue.module';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { LongRunClient } from './sandbox/long-run-client';
import { turnPortProviders } from './turn-port.providers';
import { type TurnLimits, TurnRunner } from './turn-runner';
import { TurnRunnerPorts } from './turn-runner-ports';
import { TurnWorker } from './turn-worker';

/** The wiring: binds the agent core's ports to the gateway's features and runs queued turns. */
@Module({
  imports: [
    AuditModule,
    SessionsModule,
    McpModule,
    EventsModule,
    PermissionsModule,
    InstructionsModule,
    TurnControlModule,
    TurnQueueModule,
    ModelsModule,
    NotesModule,
    ChainsModule,
    WorkspacesModule,
  ],
  providers: [
    ...turnPortProviders,
    TurnRunnerPorts,
    {
      provide: TurnRunner,
      inject: [TurnRunnerPorts, TURN_LIMITS],
      useFactory: (ports: TurnRunnerPorts, limits: TurnLimits) => new TurnRunner(ports, limits),
    },
    {
      provide: LongRunClient,
      inject: [GATEWAY_CONFIG, RedisKeys, NatsConnectionHandle, LOGGER],
      useFactory: (config: GatewaySettings, keys: RedisKeys, nats: NatsConnectionHandle, logger: Logger) =>
        LongRunClient.create(config, keys, nats.connection, logger),
    },
    TurnWorker,
  ],
})
export class AgentModule {}
