import { z } from 'zod';
import { adminModelSchema, adminModelsSchema, modelsChangedSchema, pullModelBodySchema, pullProgressSchema, removeModelRequestSchema, removedModelSchema, setModelRequestSchema } from './admin-models';
import { serviceHeartbeatSchema } from './service-heartbeat';
import {
  cancelGenerationSchema,
  embedRequestSchema,
  embedResultSchema,
  generateChunkSchema,
  generateRequestSchema,
  listModelsRequestSchema,
  listModelsResultSchema,
  workerHeartbeatSchema,
} from './inference';
import {
  cancelRunSchema,
  execRequestSchema,
  execResultSchema,
  mcpCallToolRequestSchema,
  mcpCallToolResultSchema,
  mcpListToolsRequestSchema,
  mcpServerStateRequestSchema,
  mcpServerStateResultSchema,
  mcpListToolsResultSchema,
  releaseSessionRequestSchema,
  releaseSessionResultSchema,
  sandboxImagesSchema,
  resolveImageRequestSchema,
  resolvedSandboxImageSchema,
} from './sandbox';
import { InferenceSubjects, SandboxSubjects, ToolsSubjects } from './subjects';
import {
  createWorkspaceRequestSchema,
  createWorkspaceResultSchema,
  exportPatchRequestSchema,
  exportPatchResultSchema,
  exportWorkspaceRequestSchema,
  deleteWorkspaceRequestSchema,
  deleteWorkspaceResultSchema,
  exportWorkspaceResultSchema,
  readPathRequestSchema,
  readPathResultSchema,
  toolCallRequestSchema,
  toolCallResultSchema,
  workspaceUsageRequestSchema,
  workspaceUsageResultSchema,
} from './tools';
import {
  syncWorkspaceRequestSchema,
  workspaceManifestRequestSchema,
  workspaceManifestSchema,
  workspaceSyncResultSchema,
} from './workspace-sync';

/** A request/reply pair on one subject; both sides import the same schemas. */
export interface Route<Req extends z.ZodType, Res extends z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly response: Res;
  /** The reply is a stream of `response` messages rather than a single one. */
  readonly streamed: boolean;
}

function route<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  response: Res,
  streamed = false,
): Route<Req, Res> {
  return { subject, request, response, streamed };
}

/**
 * A fire-and-forget message (plain JSON of `payload`, no reply) that every subscriber sees: no
 * queue group, so all replicas of a service get it. Not usable with the request/reply client.
 */
export interface EventRoute<P extends z.ZodType> {
  readonly subject: string;
  /** The payload's schema. */
  readonly request: P;
  readonly event: true;
}

function event<P extends z.ZodType>(subject: string, payload: P): EventRoute<P> {
  return { subject, request: payload, event: true };
}

export const Routes = {
  inferenceGenerate: route(InferenceSubjects.generate, generateRequestSchema, generateChunkSchema, true),
  inferenceListModels: route(InferenceSubjects.listModels, listModelsRequestSchema, listModelsResultSchema),
  inferenceEmbed: route(InferenceSubjects.embed, embedRequestSchema, embedResultSchema),
  inferenceCancel: event(InferenceSubjects.cancel, cancelGenerationSchema),
  inferenceWorkerAnnounced: event(InferenceSubjects.workerAnnounced, workerHeartbeatSchema),
  inferenceModelsPull: route(InferenceSubjects.modelsPull, pullModelBodySchema, pullProgressSchema, true),
  inferenceModelsList: route(InferenceSubjects.modelsList, z.object({}), adminModelsSchema),
  inferenceModelsSet: route(InferenceSubjects.modelsSet, setModelRequestSchema, adminModelSchema),
  inferenceModelsRemove: route(InferenceSubjects.modelsRemove, removeModelRequestSchema, removedModelSchema),
  inferenceModelsChanged: event(InferenceSubjects.modelsChanged, modelsChangedSchema),
  toolsCall: route(ToolsSubjects.call, toolCallRequestSchema, toolCallResultSchema),
  toolsCreateWorkspace: route(ToolsSubjects.createWorkspace, createWorkspaceRequestSchema, createWorkspaceResultSchema),
  toolsReadPath: route(ToolsSubjects.readPath, readPathRequestSchema, readPathResultSchema),
  toolsExportWorkspace: route(ToolsSubjects.exportWorkspace, exportWorkspaceRequestSchema, exportWorkspaceResultSchema),
  toolsExportPatch: route(ToolsSubjects.exportPatch, exportPatchRequestSchema, exportPatchResultSchema),
  toolsWorkspaceUsage: route(ToolsSubjects.workspaceUsage, workspaceUsageRequestSchema, workspaceUsageResultSchema),
  toolsDeleteWorkspace: route(ToolsSubjects.deleteWorkspace, deleteWorkspaceRequestSchema, deleteWorkspaceResultSchema),
  toolsWorkspaceManifest: route(ToolsSubjects.workspaceManifest, workspaceManifestRequestSchema, workspaceManifestSchema),
  toolsWorkerAnnounced: event(ToolsSubjects.workerAnnounced, serviceHeartbeatSchema),
  toolsSyncWorkspace: route(ToolsSubjects.syncWorkspace, syncWorkspaceRequestSchema, workspaceSyncResultSchema),
  sandboxExec: route(SandboxSubjects.exec, execRequestSchema, execResultSchema),
  sandboxCancel: event(SandboxSubjects.cancel, cancelRunSchema),
  sandboxWorkerAnnounced: event(SandboxSubjects.workerAnnounced, serviceHeartbeatSchema),
  sandboxImages: route(SandboxSubjects.images, z.object({}), sandboxImagesSchema),
  sandboxResolveImage: route(SandboxSubjects.resolveImage, resolveImageRequestSchema, resolvedSandboxImageSchema),
  sandboxReleaseSession: route(SandboxSubjects.releaseSession, releaseSessionRequestSchema, releaseSessionResultSchema),
  sandboxMcpListTools: route(SandboxSubjects.mcpListTools, mcpListToolsRequestSchema, mcpListToolsResultSchema),
  sandboxMcpCallTool: route(SandboxSubjects.mcpCallTool, mcpCallToolRequestSchema, mcpCallToolResultSchema),
  sandboxMcpServerState: route(SandboxSubjects.mcpServerState, mcpServerStateRequestSchema, mcpServerStateResultSchema),
} as const;

export type RouteRequest<R> = R extends Route<infer Req, z.ZodType> ? z.input<Req> : never;
export type RouteResponse<R> = R extends Route<z.ZodType, infer Res> ? z.infer<Res> : never;
export type EventPayload<E> = E extends EventRoute<infer P> ? z.infer<P> : never;
