import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@weft/logging';
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
  TURN_STORE,
  WORKSPACE_QUOTA_PORT,
} from '../agent-core/port-tokens';
import type {
  CancellationPort,
  FileToolsPort,
  InferencePort,
  InstructionsPort,
  ModelContextPort,
  NotesPort,
  PermissionPort,
  SandboxPort,
  TurnAccountingPort,
  TurnStore,
  WorkspaceQuotaPort,
} from '../agent-core/ports';
import type { AgentTool } from '../agent-core/tools/define-tool';
import type { ChainsPort } from '../chains/chain-loader';
import { LOGGER } from '../infra/tokens';
import type { McpToolsPort, TurnRunnerDeps } from './turn-runner';

/** The ports a TurnRunner uses, each injected by its own token. */
@Injectable()
export class TurnRunnerPorts implements TurnRunnerDeps {
  constructor(
    @Inject(TURN_STORE) readonly store: TurnStore,
    @Inject(INFERENCE_PORT) readonly inference: InferencePort,
    @Inject(FILE_TOOLS_PORT) readonly files: FileToolsPort,
    @Inject(SANDBOX_PORT) readonly sandbox: SandboxPort,
    @Inject(AGENT_TOOLS) readonly tools: ReadonlyMap<string, AgentTool>,
    @Inject(PERMISSION_PORT) readonly permissions: PermissionPort,
    @Inject(INSTRUCTIONS_PORT) readonly instructions: InstructionsPort,
    @Inject(CANCELLATION_PORT) readonly cancellation: CancellationPort,
    @Inject(NOTES_PORT) readonly notes: NotesPort,
    @Inject(CHAINS_PORT) readonly chains: ChainsPort,
    @Inject(MODEL_CONTEXT_PORT) readonly models: ModelContextPort,
    @Inject(WORKSPACE_QUOTA_PORT) readonly quota: WorkspaceQuotaPort,
    @Inject(TURN_ACCOUNTING_PORT) readonly accounting: TurnAccountingPort,
    @Inject(MCP_TOOLS_PORT) readonly mcp: McpToolsPort,
    @Inject(LOGGER) readonly logger: Logger,
  ) {}
}
