import { z } from 'zod';
import {
  generateChunkSchema,
  generateRequestSchema,
  listModelsRequestSchema,
  listModelsResultSchema,
} from './inference';
import { execRequestSchema, execResultSchema } from './sandbox';
import { InferenceSubjects, SandboxSubjects, ToolsSubjects } from './subjects';
import {
  createWorkspaceRequestSchema,
  createWorkspaceResultSchema,
  exportWorkspaceRequestSchema,
  exportWorkspaceResultSchema,
  readPathRequestSchema,
  readPathResultSchema,
  toolCallRequestSchema,
  toolCallResultSchema,
} from './tools';

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

export const Routes = {
  inferenceGenerate: route(InferenceSubjects.generate, generateRequestSchema, generateChunkSchema, true),
  inferenceListModels: route(InferenceSubjects.listModels, listModelsRequestSchema, listModelsResultSchema),
  toolsCall: route(ToolsSubjects.call, toolCallRequestSchema, toolCallResultSchema),
  toolsCreateWorkspace: route(ToolsSubjects.createWorkspace, createWorkspaceRequestSchema, createWorkspaceResultSchema),
  toolsReadPath: route(ToolsSubjects.readPath, readPathRequestSchema, readPathResultSchema),
  toolsExportWorkspace: route(ToolsSubjects.exportWorkspace, exportWorkspaceRequestSchema, exportWorkspaceResultSchema),
  sandboxExec: route(SandboxSubjects.exec, execRequestSchema, execResultSchema),
} as const;

export type RouteRequest<R> = R extends Route<infer Req, z.ZodType> ? z.input<Req> : never;
export type RouteResponse<R> = R extends Route<z.ZodType, infer Res> ? z.infer<Res> : never;
