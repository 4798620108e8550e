import { Module } from '@nestjs/common';
import { RpcClient } from '@weft/messaging';
import { agentTools } from '../agent-core/tools/agent-tools';
import { toolsFor } from '../agent-core/tools/runtime-tools';
import { RpcChainLoader } from './chain-loader';

/** Every tool a chain's tool step may name. */
export const CHAIN_TOOLS: ReadonlySet<string> = new Set(toolsFor(agentTools, false).keys());

/** The chain loader, shared by the sessions API (which checks a run before queueing it) and the runner. */
@Module({
  providers: [{ provide: RpcChainLoader, inject: [RpcClient], useFactory: (rpc: RpcClient) => new RpcChainLoader(rpc, CHAIN_TOOLS) }],
  exports: [RpcChainLoader],
})
export class ChainsModule {}
