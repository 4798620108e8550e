import { ErrorCode, type ExecSession, type SandboxNetwork, type ToolDefinition } from '@weft/contracts';
import { z } from 'zod';
import type { FileToolsPort, Note, SandboxPort, ToolOutcome } from '../ports';

export interface ToolContext {
  workspaceId: string;
  files: FileToolsPort;
  sandbox: SandboxPort;
  /** The id of the call being run; set by runToolCall. */
  callId?: string;
  /** Aborts when the turn is cancelled: a long sandbox run is killed. */
  signal?: AbortSignal;
  /** The session's sandbox network policy; `none` when absent. */
  sandboxNetwork?: SandboxNetwork;
  /** The session its commands run for: they share that session's container. */
  session?: ExecSession;
  /** Whether commands may write to the workspace; read-only when absent. */
  sandboxWorkspace?: 'read-only' | 'read-write';
  /** The catalogue image the session's commands run in. */
  sandboxImage?: string;
  /** The owner's workspace quota: refuses writes while over it, and measures after a run wrote. */
  quota?: QuotaPort;
  /** Appends a long run's live output to the session's log (`tool.output`). */
  emitOutput?: (callId: string, stream: 'stdout' | 'stderr', text: string) => Promise<void>;
  /** Stores a shared note of the workspace. */
  remember?: (text: string) => Promise<Note>;
  /** Runs a task in the junior model's own loop; absent where delegation is not offered. */
  delegate?: (task: string, callId: string) => Promise<ToolOutcome>;
}

export interface QuotaPort {
  /** Rejects with WORKSPACE.QUOTA_EXCEEDED while the owner's workspaces are over quota. */
  assertCanWrite(): Promise<void>;
  /** Measures the owner's workspaces after a run wrote to one. */
  measure(): Promise<{ usedBytes: number; quotaBytes: number; over: boolean }>;
}

/** A tool the model can call: its definition, and a `run` that parses arguments before executing. */
export interface AgentTool {
  definition: ToolDefinition;
  /** Keeps its own steps, so a rerun after a crash carries it on rather than refusing to run it twice. */
  resumable?: boolean;
  run(args: unknown, context: ToolContext): Promise<ToolOutcome>;
}

export function defineTool<S extends z.ZodType>(
  name: string,
  spec: {
    description: string;
    parameters: S;
    execute: (args: z.infer<S>, context: ToolContext) => Promise<ToolOutcome>;
    resumable?: boolean;
  },
): AgentTool {
  // `$schema` is noise to a model; the rest is what it needs to fill the arguments in.
  const parameters: Record<string, unknown> = { ...z.toJSONSchema(spec.parameters, { io: 'input' }) };
  delete parameters.$schema;
  return {
    definition: { name, description: spec.description, parameters },
    ...(spec.resumable ? { resumable: true } : {}),
    async run(args, context) {
      const parsed = spec.parameters.safeParse(args);
      if (parsed.success) return spec.execute(parsed.data, context);
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(arguments)'}: ${i.message}`);
      return { isError: true, output: `${ErrorCode.InvalidToolArguments}: invalid arguments for ${name}: ${problems.join('; ')}` };
    },
  };
}
