export { AppError, ErrorCode, assertUnreachable, isWireError, wireErrorSchema } from './errors';
export type { WireError } from './errors';
export { InferenceSubjects, QueueGroups, SandboxSubjects, ToolsSubjects } from './subjects';
export { Jobs, Queues, agentJobSchema, runTurnJobSchema } from './queues';
export type { AgentJob, RunTurnJob } from './queues';
export {
  chatMessageSchema,
  finishReasonSchema,
  generateChunkSchema,
  generateRequestSchema,
  generateResultSchema,
  listModelsRequestSchema,
  listModelsResultSchema,
  modelInfoSchema,
  toolCallSchema,
  toolDefinitionSchema,
} from './inference';
export type {
  ChatMessage,
  GenerateChunk,
  GenerateRequest,
  GenerateResult,
  ListModelsResult,
  ModelInfo,
  ToolCall,
  ToolDefinition,
} from './inference';
export {
  FileToolName,
  createWorkspaceRequestSchema,
  createWorkspaceResultSchema,
  directoryEntrySchema,
  executeCodeArgsSchema,
  exportWorkspaceRequestSchema,
  exportWorkspaceResultSchema,
  listDirectoryArgsSchema,
  readFileArgsSchema,
  readPathRequestSchema,
  readPathResultSchema,
  runCommandArgsSchema,
  toolCallRequestSchema,
  toolCallResultSchema,
  workspaceIdSchema,
  writeFileArgsSchema,
} from './tools';
export type { ReadPathResult, ToolCallRequest, ToolCallResult } from './tools';
export { execRequestSchema, execResultSchema } from './sandbox';
export type { ExecRequest, ExecResult } from './sandbox';
export { sessionEventSchema } from './events';
export type { SessionEvent, SessionEventType, StoredSessionEvent } from './events';
export { Routes } from './routes';
export type { Route, RouteRequest, RouteResponse } from './routes';
