export { AppError, ErrorCode, assertUnreachable, isWireError, wireErrorSchema } from './errors';
export type { WireError } from './errors';
export {
  adminModelIdSchema,
  adminModelSchema,
  adminModelsSchema,
  ggufFactsSchema,
  modelSettingsSchema,
  modelsChangedSchema,
  pullErrorLineSchema,
  pullLineSchema,
  pullModelBodySchema,
  pullProgressSchema,
  removeModelRequestSchema,
  removedModelSchema,
  setModelRequestSchema,
} from './admin-models';
export type { AdminModel, GgufFacts, ModelSettings, PullLine, PullModelBody, PullProgress } from './admin-models';
export { SERVICE_HEARTBEAT_INTERVAL_MS, serviceHeartbeatSchema } from './service-heartbeat';
export type { ServiceHeartbeat } from './service-heartbeat';
export {
  InferenceSubjects,
  QueueGroups,
  SandboxSubjects,
  ToolsSubjects,
  inferenceWorkerAliveSubject,
  inferenceWorkerEmbedSubject,
  inferenceWorkerGenerateSubject,
  sandboxRunOutputSubject,
} from './subjects';
export {
  Jobs,
  Queues,
  agentJobSchema,
  chainInvocationSchema,
  longRunJobSchema,
  runIdSchema,
  runTurnJobSchema,
  sandboxJobSchema,
  turnModeSchema,
} from './queues';
export type { AgentJob, ChainInvocation, LongRunJob, RunTurnJob, RunTurnJobInput, SandboxJob, TurnMode } from './queues';
export {
  cancelGenerationSchema,
  chatMessageSchema,
  contextOverflowSchema,
  EMBED_MAX_INPUT_CHARS,
  EMBED_MAX_INPUTS,
  embedRequestSchema,
  embedResultSchema,
  finishReasonSchema,
  generateChunkSchema,
  generateRequestSchema,
  generateResultSchema,
  listModelsRequestSchema,
  listModelsResultSchema,
  MAX_REPLY_TOKENS,
  modelInfoSchema,
  replyTokenLimit,
  toolCallSchema,
  toolChoiceSchema,
  toolDefinitionSchema,
  workerHeartbeatSchema,
  workerModelStatusSchema,
} from './inference';
export type {
  CancelGeneration,
  ChatMessage,
  EmbedRequest,
  EmbedResult,
  GenerateChunk,
  GenerateRequest,
  GenerateResult,
  ListModelsResult,
  ModelInfo,
  ModelLoadingChunk,
  ToolCall,
  ToolChoice,
  ToolDefinition,
  WorkerHeartbeat,
  WorkerModelStatus,
} from './inference';
export {
  createWorkspaceRequestSchema,
  createWorkspaceResultSchema,
  directoryEntrySchema,
  executeCodeArgsSchema,
  exportPatchRequestSchema,
  exportPatchResultSchema,
  exportWorkspaceRequestSchema,
  exportWorkspaceResultSchema,
  GIT_URL_PROTOCOLS,
  gitSourceSchema,
  gitUrlHost,
  readPathRequestSchema,
  readPathResultSchema,
  runCommandArgsSchema,
  toolCallRequestSchema,
  toolCallResultSchema,
  workspaceIdSchema,
  workspaceUsageRequestSchema,
  workspaceUsageResultSchema,
  workspaceUsageSchema,
} from './tools';
export {
  FileToolName,
  createDirectoryArgsSchema,
  deleteFileArgsSchema,
  editFileArgsSchema,
  fileEditSchema,
  fileToolSpecs,
  globArgsSchema,
  listDirectoryArgsSchema,
  moveFileArgsSchema,
  readFileArgsSchema,
  searchFilesArgsSchema,
  writeFileArgsSchema,
} from './file-tools';
export type { FileToolArgs } from './file-tools';
export type { GitSource, ReadPathResult, ToolCallRequest, ToolCallResult, WorkspaceUsage } from './tools';
export {
  RUN_OUTPUT_CHUNK_MAX_CHARS,
  cancelRunSchema,
  execRequestSchema,
  execResultSchema,
  execSessionSchema,
  mcpStdioServerSchema,
  runOutputMessageSchema,
  sandboxImageIdSchema,
  sandboxImagesSchema,
  resolvedSandboxImageSchema,
  resolveImageRequestSchema,
  sandboxNetworkSchema,
  workspaceChangesSchema,
} from './sandbox';
export type {
  CancelRun,
  ExecRequest,
  ExecResult,
  ExecSession,
  McpStdioServer,
  RunOutputMessage,
  SandboxImages,
  ResolvedSandboxImage,
  SandboxNetwork,
  WorkspaceChanges,
} from './sandbox';
export { interruptReasonSchema, sessionEventSchema, subtaskSchema } from './events';
export type { InterruptReason, SessionEvent, SessionEventType, StoredSessionEvent, Subtask } from './events';
export {
  MANIFEST_MAX_ENTRIES,
  SYNC_KEPT_FOLDER,
  SYNC_MAX_DELETED,
  SYNC_MAX_DELETED_CHARS,
  SYNC_SKIPPED_NAMES,
  manifestEntrySchema,
  syncWorkspaceRequestSchema,
  workspaceManifestRequestSchema,
  workspaceManifestSchema,
  workspaceSyncBodySchema,
  workspaceSyncResultSchema,
} from './workspace-sync';
export type { ManifestEntry, WorkspaceManifest, WorkspaceSyncBody, WorkspaceSyncResult } from './workspace-sync';
export { Routes } from './routes';
export type { EventPayload, EventRoute, Route, RouteRequest, RouteResponse } from './routes';
export * from './http';
export {
  DEFAULT_REQUEST_COST_LIMITS,
  MAX_LOGIT_BIAS_ENTRIES,
  MAX_STOP_CHARS,
  MAX_STOP_STRINGS,
  describeCostExcess,
  generateRequestExcess,
  measureSchema,
  schemaExcessAt,
  stopExcess,
  toolsExcess,
} from './request-cost';
export type { RequestCostExcess, RequestCostLimits, SchemaExcess, SchemaMeasure, ToolCostEntry } from './request-cost';
