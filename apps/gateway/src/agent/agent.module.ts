import { Module } from '@nestjs/common';
import { Routes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { EventLogRepository } from '../events/event-log.repository';
import { EventsModule } from '../events/events.module';
import { InstructionsLoader } from '../instructions/instructions.loader';
import { InstructionsModule } from '../instructions/instructions.module';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import { ModelsModule } from '../models/models.module';
import { ModelsService } from '../models/models.service';
import { PermissionGate } from '../permissions/permission-gate';
import { PermissionsModule } from '../permissions/permissions.module';
import { McpModule } from '../mcp/mcp.module';
import { McpService } from '../mcp/mcp.service';
import { SessionsModule } from '../sessions/sessions.module';
import { SessionsRepository } from '../sessions/sessions.repository';
import { RedisTurnStore } from './redis-turn-store';
import { MeteredFleet } from '../accounting/metered-fleet';
import { TurnAccounting } from '../accounting/turn-accounting';
import { meteredSandboxPort } from '../accounting/metered-sandbox';
import { QuotaService } from '../accounting/quota.service';
import { UsageService } from '../accounting/usage.service';
import { UserLimitsRepository } from '../accounting/user-limits';
import { rpcFileToolsPort, rpcInferencePort, rpcSandboxPort } from './rpc-ports';
import { NotesModule } from '../notes/notes.module';
import { NotesRepository } from '../notes/notes.repository';
import { RpcChainLoader } from '../chains/chain-loader';
import { ServiceLiveness } from '../fleet/service-liveness';
import { ChainsModule } from '../chains/chains.module';
import { modelCatalog } from './model-catalog';
import { LongRunClient } from './sandbox/long-run-client';
import { routingSandboxPort } from './sandbox/routing-sandbox-port';
import { agentTools } from '../agent-core/tools/agent-tools';
import { TurnCancellation } from '../turns/turn-cancellation';
import { TurnControlModule } from '../turns/turn-control.module';
import { TurnQueueModule } from '../turns/turn-queue.module';
import { TurnRunner } from './turn-runner';
import { TurnWorker } from './turn-worker';
import { WorkspaceQuotaGuard } from '../workspaces/workspace-quota-guard';
import { WorkspacesModule } from '../workspaces/workspaces.module';

@Module({
  imports: [
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
    {
      provide: TurnRunner,
      inject: [
        GATEWAY_CONFIG,
        RpcClient,
        NatsConnectionHandle,
        REDIS,
        RedisKeys,
        SessionsRepository,
        EventLogRepository,
        PermissionGate,
        InstructionsLoader,
        TurnCancellation,
        MeteredFleet,
        TurnAccounting,
        UserLimitsRepository,
        QuotaService,
        UsageService,
        ModelsService,
        NotesRepository,
        RpcChainLoader,
        LongRunClient,
        WorkspaceQuotaGuard,
        McpService,
        ServiceLiveness,
        LOGGER,
      ],
      useFactory: (
        config: GatewaySettings,
        rpc: RpcClient,
        nats: NatsConnectionHandle,
        redis: Redis,
        keys: RedisKeys,
        sessions: SessionsRepository,
        events: EventLogRepository,
        permissions: PermissionGate,
        instructions: InstructionsLoader,
        cancellation: TurnCancellation,
        fleet: MeteredFleet,
        accounting: TurnAccounting,
        limits: UserLimitsRepository,
        quotas: QuotaService,
        usage: UsageService,
        models: ModelsService,
        notes: NotesRepository,
        chains: RpcChainLoader,
        longRuns: LongRunClient,
        quota: WorkspaceQuotaGuard,
        mcp: McpService,
        liveness: ServiceLiveness,
        logger: Logger,
      ) =>
        new TurnRunner(
          {
            store: new RedisTurnStore(redis, keys, sessions, events),
            inference: rpcInferencePort(
              rpc,
              config.INFERENCE_TIMEOUT_MS,
              (payload) => nats.publish(Routes.inferenceCancel.subject, payload),
              fleet,
              config.AGENT_INFERENCE_BUSY_WAIT_MS,
            ),
            files: rpcFileToolsPort(rpc, liveness),
            sandbox: meteredSandboxPort(
              routingSandboxPort(
                rpcSandboxPort(rpc, config.SANDBOX_TIMEOUT_MS, liveness, (payload) => nats.publish(Routes.sandboxCancel.subject, payload)),
                longRuns,
                {
                  thresholdMs: config.SANDBOX_LONG_RUN_THRESHOLD_MS,
                  longRunTimeoutMs: config.SANDBOX_LONG_RUN_TIMEOUT_MS,
                  egressAllowed: config.SANDBOX_EGRESS_ALLOWED,
                },
              ),
              limits,
              quotas,
              usage,
            ),
            tools: agentTools,
            permissions,
            instructions,
            cancellation,
            notes,
            chains,
            models: modelCatalog(models),
            quota,
            accounting,
            mcp,
            logger,
          },
          {
            maxIterations: config.AGENT_MAX_ITERATIONS,
            maxReplyTokens: config.AGENT_MAX_REPLY_TOKENS,
            loopRepeatLimit: config.AGENT_LOOP_REPEAT_LIMIT,
            repeatedErrorLimit: config.AGENT_REPEATED_ERROR_LIMIT,
            maxTurnTokens: config.AGENT_MAX_TURN_TOKENS,
            maxTurnMs: config.AGENT_MAX_TURN_MS,
          },
        ),
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
