import type { Provider } from '@nestjs/common';
import { Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';
import type { Redis } from 'ioredis';
import { meteredSandboxPort } from '../accounting/metered-sandbox';
import { MeteredFleet } from '../accounting/metered-fleet';
import { QuotaService } from '../accounting/quota.service';
import { TurnAccounting } from '../accounting/turn-accounting';
import { UsageService } from '../accounting/usage.service';
import { UserLimitsRepository } from '../accounting/user-limits';
import {
  AGENT_TOOLS,
  CANCELLATION_PORT,
  CHAINS_PORT,
  FILE_TOOLS_PORT,
  INFERENCE_PORT,
  INSTRUCTIONS_PORT,
  MCP_TOOLS_PORT,
  MODEL_CONTEXT_PORT,
  NOTES_PORT,
  PERMISSION_PORT,
  SANDBOX_PORT,
  TURN_ACCOUNTING_PORT,
  TURN_LIMITS,
  TURN_STORE,
  WORKSPACE_QUOTA_PORT,
} from '../agent-core/port-tokens';
import { agentTools } from '../agent-core/tools/agent-tools';
import { RpcChainLoader } from '../chains/chain-loader';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { ToolAuditRepository } from '../audit/tool-audit.repository';
import { EventLogRepository } from '../events/event-log.repository';
import { ServiceLiveness } from '../fleet/service-liveness';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { RedisKeys } from '../infra/redis-keys';
import { REDIS } from '../infra/tokens';
import { InstructionsLoader } from '../instructions/instructions.loader';
import { McpService } from '../mcp/mcp.service';
import { ModelsService } from '../models/models.service';
import { NotesRepository } from '../notes/notes.repository';
import { PermissionGate } from '../permissions/permission-gate';
import { SessionsRepository } from '../sessions/sessions.repository';
import { TurnCancellation } from '../turns/turn-cancellation';
import { WorkspaceQuotaGuard } from '../workspaces/workspace-quota-guard';
import { modelCatalog } from './model-catalog';
import { RedisTurnStore } from './redis-turn-store';
import { rpcFileToolsPort, rpcInferencePort, rpcSandboxPort } from './rpc-ports';
import { LongRunClient } from './sandbox/long-run-client';
import { routingSandboxPort } from './sandbox/routing-sandbox-port';
import type { TurnLimits } from './turn-runner';

/** Each of the agent's ports, bound to the feature or adapter that implements it in the gateway. */
export const turnPortProviders: Provider[] = [
  {
    provide: TURN_STORE,
    inject: [REDIS, RedisKeys, SessionsRepository, EventLogRepository, ToolAuditRepository],
    useFactory: (redis: Redis, keys: RedisKeys, sessions: SessionsRepository, events: EventLogRepository, audit: ToolAuditRepository) =>
      new RedisTurnStore(redis, keys, sessions, events, audit),
  },
  {
    provide: INFERENCE_PORT,
    inject: [GATEWAY_CONFIG, RpcClient, NatsConnectionHandle, MeteredFleet],
    useFactory: (config: GatewaySettings, rpc: RpcClient, nats: NatsConnectionHandle, fleet: MeteredFleet) =>
      rpcInferencePort(
        rpc,
        config.INFERENCE_TIMEOUT_MS,
        (payload) => nats.publish(Routes.inferenceCancel.subject, payload),
        fleet,
        config.AGENT_INFERENCE_BUSY_WAIT_MS,
      ),
  },
  {
    provide: FILE_TOOLS_PORT,
    inject: [RpcClient, ServiceLiveness],
    useFactory: (rpc: RpcClient, liveness: ServiceLiveness) => rpcFileToolsPort(rpc, liveness),
  },
  {
    provide: SANDBOX_PORT,
    inject: [GATEWAY_CONFIG, RpcClient, NatsConnectionHandle, ServiceLiveness, LongRunClient, UserLimitsRepository, QuotaService, UsageService],
    useFactory: (
      config: GatewaySettings,
      rpc: RpcClient,
      nats: NatsConnectionHandle,
      liveness: ServiceLiveness,
      longRuns: LongRunClient,
      limits: UserLimitsRepository,
      quotas: QuotaService,
      usage: UsageService,
    ) =>
      meteredSandboxPort(
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
  },
  { provide: AGENT_TOOLS, useValue: agentTools },
  { provide: PERMISSION_PORT, useExisting: PermissionGate },
  { provide: INSTRUCTIONS_PORT, useExisting: InstructionsLoader },
  { provide: CANCELLATION_PORT, useExisting: TurnCancellation },
  { provide: NOTES_PORT, useExisting: NotesRepository },
  { provide: CHAINS_PORT, useExisting: RpcChainLoader },
  { provide: MODEL_CONTEXT_PORT, inject: [ModelsService], useFactory: (models: ModelsService) => modelCatalog(models) },
  { provide: WORKSPACE_QUOTA_PORT, useExisting: WorkspaceQuotaGuard },
  { provide: TURN_ACCOUNTING_PORT, useExisting: TurnAccounting },
  { provide: MCP_TOOLS_PORT, useExisting: McpService },
  {
    provide: TURN_LIMITS,
    inject: [GATEWAY_CONFIG],
    useFactory: (config: GatewaySettings): TurnLimits => ({
      maxIterations: config.AGENT_MAX_ITERATIONS,
      maxReplyTokens: config.AGENT_MAX_REPLY_TOKENS,
      loopRepeatLimit: config.AGENT_LOOP_REPEAT_LIMIT,
      repeatedErrorLimit: config.AGENT_REPEATED_ERROR_LIMIT,
      maxTurnTokens: config.AGENT_MAX_TURN_TOKENS,
      maxTurnMs: config.AGENT_MAX_TURN_MS,
    }),
  },
];
