import { Module } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { EventLogRepository } from '../events/event-log.repository';
import { EventsModule } from '../events/events.module';
import { LOGGER } from '../infra/tokens';
import { SessionsModule } from '../sessions/sessions.module';
import { SessionsRepository } from '../sessions/sessions.repository';
import { RedisTurnStore } from './redis-turn-store';
import { rpcFileToolsPort, rpcInferencePort, rpcSandboxPort } from './rpc-ports';
import { agentTools } from './tools/agent-tools';
import { TurnRunner } from './turn-runner';
import { TurnWorker } from './turn-worker';

@Module({
  imports: [SessionsModule, EventsModule],
  providers: [
    {
      provide: TurnRunner,
      inject: [GATEWAY_CONFIG, RpcClient, SessionsRepository, EventLogRepository, LOGGER],
      useFactory: (config: GatewaySettings, rpc: RpcClient, sessions: SessionsRepository, events: EventLogRepository, logger: Logger) =>
        new TurnRunner(
          {
            store: new RedisTurnStore(sessions, events),
            inference: rpcInferencePort(rpc, config.INFERENCE_TIMEOUT_MS),
            files: rpcFileToolsPort(rpc),
            sandbox: rpcSandboxPort(rpc, config.SANDBOX_TIMEOUT_MS),
            tools: agentTools,
            logger,
          },
          { maxIterations: config.AGENT_MAX_ITERATIONS, maxReplyTokens: config.AGENT_MAX_REPLY_TOKENS },
        ),
    },
    TurnWorker,
  ],
})
export class AgentModule {}
