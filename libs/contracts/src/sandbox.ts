import { z } from 'zod';
import { wireErrorSchema } from './errors';
import { workspaceIdSchema } from './tools';

/**
 * A run's network: `none` (loopback only), `proxy` (an internal network whose only way out is
 * the allow-listing proxy: package registries, nothing else), or `egress`, a bridge network that
 * reaches the internet directly but not the services of the deployment. The gateway decides
 * which from the session's policy and the server's settings.
 */
export const sandboxNetworkSchema = z.enum(['none', 'proxy', 'egress']);
export type SandboxNetwork = z.infer<typeof sandboxNetworkSchema>;

/** An id of the admin's sandbox image catalogue (`SANDBOX_IMAGES`). */
export const sandboxImageIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/, 'lower-case letters, digits, ".", "_" and "-"');

/**
 * The session a command belongs to: it runs in that session's own container, created on its
 * first command and reused by the next ones. Ids come from the gateway, never from the model.
 */
export const execSessionSchema = z.object({
  sessionId: z.string().regex(/^ses_[A-Za-z0-9_-]{8,64}$/, 'not a session id'),
  /** The session's owner: their package cache and their proxy network. */
  ownerId: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'not a user id'),
});
export type ExecSession = z.infer<typeof execSessionSchema>;

export const execRequestSchema = z.discriminatedUnion('mode', [
  z.object({
    mode: z.literal('command'),
    workspaceId: workspaceIdSchema,
    command: z.string().min(1),
    cwd: z.string().optional(),
    /** Mount the workspace read-write (`.weft/` stays read-only); read-only otherwise. */
    writable: z.boolean().default(false),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    network: sandboxNetworkSchema.default('none'),
    /** Runs in the session's warm container; absent, in a throwaway one. */
    session: execSessionSchema.optional(),
    /**
     * The catalogue image to run in; absent, the workspace's `.weft/settings.json`, then its
     * devcontainer's image when catalogued, then the catalogue's default.
     */
    image: sandboxImageIdSchema.optional(),
    /**
     * Set by a caller that may cancel the run: `weft.sandbox.v1.cancel` with this id kills it
     * (a short run's process, as a long run's).
     */
    runId: z.string().min(1).max(128).optional(),
  }),
  z.object({
    mode: z.literal('code'),
    workspaceId: workspaceIdSchema.optional(),
    language: z.enum(['python', 'node', 'bash', 'lua']),
    code: z.string().min(1),
    stdin: z.string().optional(),
    timeoutMs: z.number().int().positive().max(600_000).optional(),
    network: sandboxNetworkSchema.default('none'),
    /**
     * Set by a caller that may cancel the run: `weft.sandbox.v1.cancel` with this id kills it
     * (a short run's process, as a long run's).
     */
    runId: z.string().min(1).max(128).optional(),
  }),
]);
export type ExecRequest = z.input<typeof execRequestSchema>;

/**
 * What a writable run did to the workspace, compared before and after. Paths are relative to the
 * workspace; a folder of dependencies (`node_modules`, `.venv`, ...) counts as one entry with
 * the number of files it gained, changed or lost.
 */
export const workspaceChangesSchema = z.object({
  created: z.array(z.string()),
  modified: z.array(z.string()),
  deleted: z.array(z.string()),
  /** Dependency folders that changed, with how many files in them did. */
  folders: z.array(z.object({ path: z.string(), files: z.number().int().nonnegative() })).default([]),
  /** More paths changed than are listed. */
  truncated: z.boolean().default(false),
  /** What the workspace holds now. */
  bytes: z.number().int().nonnegative(),
});
export type WorkspaceChanges = z.infer<typeof workspaceChangesSchema>;

export const execResultSchema = z.object({
  exitCode: z.number().int().nullable(),
  /** When capped: the head and the tail of the stream, the middle cut (`stdoutCutBytes`). */
  stdout: z.string(),
  stderr: z.string(),
  stdoutTruncated: z.boolean(),
  stderrTruncated: z.boolean(),
  /** Bytes of the stream left out of the middle when it was capped. */
  stdoutCutBytes: z.number().int().nonnegative().optional(),
  stderrCutBytes: z.number().int().nonnegative().optional(),
  timedOut: z.boolean(),
  oomKilled: z.boolean(),
  durationMs: z.number().nonnegative(),
  /** The catalogue id of the image it ran in (commands only). */
  image: z.string().optional(),
  /** Ran in the session's container that an earlier command had already started. */
  reused: z.boolean().optional(),
  /** A writable run's effect on the workspace. */
  changes: workspaceChangesSchema.optional(),
});
export type ExecResult = z.infer<typeof execResultSchema>;

/** Largest piece of output one streamed chunk carries; the sandbox splits bigger ones. */
export const RUN_OUTPUT_CHUNK_MAX_CHARS = 8192;

/**
 * What a long run publishes on its own subject (`sandboxRunOutputSubject`), in order: `started`
 * when a worker takes it, output chunks as they come (each stream capped in total like the
 * result's output), then exactly one `result` or `failed`.
 */
export const runOutputMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('started'), runId: z.string(), timeoutMs: z.number().int().positive() }),
  z.object({
    type: z.literal('chunk'),
    runId: z.string(),
    stream: z.enum(['stdout', 'stderr']),
    text: z.string().max(RUN_OUTPUT_CHUNK_MAX_CHARS),
  }),
  z.object({ type: z.literal('result'), runId: z.string(), result: execResultSchema }),
  z.object({ type: z.literal('failed'), runId: z.string(), error: wireErrorSchema }),
]);
export type RunOutputMessage = z.infer<typeof runOutputMessageSchema>;

/** The admin's catalogue of images commands may run in (`SANDBOX_IMAGES`). */
export const sandboxImagesSchema = z.object({
  default: sandboxImageIdSchema,
  images: z.array(z.object({ id: sandboxImageIdSchema, image: z.string() })),
});
export type SandboxImages = z.infer<typeof sandboxImagesSchema>;

/**
 * The image a workspace's commands run in and what chose it: the session (`request`), the
 * workspace's `.weft/settings.json` (`settings`), its devcontainer's image (`devcontainer`), a
 * build file of its project such as `Cargo.toml` (`project`), or the catalogue's `default`.
 */
export const resolvedSandboxImageSchema = z.object({
  /** The catalogue id. */
  id: sandboxImageIdSchema,
  /** The image reference the engine runs. */
  image: z.string(),
  source: z.enum(['request', 'settings', 'devcontainer', 'project', 'default']),
  /** The workspace file that chose it, relative to the workspace. */
  file: z.string().optional(),
});
export type ResolvedSandboxImage = z.infer<typeof resolvedSandboxImageSchema>;

/** Which image a workspace's commands would run in now, given the session's own choice if any. */
export const resolveImageRequestSchema = z.object({ workspaceId: workspaceIdSchema, image: sandboxImageIdSchema.optional() });

/** Removes a session's container (the session was deleted); `removed` counts containers. */
export const releaseSessionRequestSchema = z.object({ sessionId: execSessionSchema.shape.sessionId });
export const releaseSessionResultSchema = z.object({ removed: z.number().int().nonnegative() });

/** Stops a long run wherever it is: its container is killed and removed, or it never starts. */
export const cancelRunSchema = z.object({ runId: z.string().min(1) });
export type CancelRun = z.infer<typeof cancelRunSchema>;

/** A stdio MCP server, started inside the session's container (never on a host). */
export const mcpStdioServerSchema = z.object({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,32}$/),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
});
export type McpStdioServer = z.infer<typeof mcpStdioServerSchema>;

/** Where a stdio MCP server runs: the session's container, as its commands would get it. */
const mcpStdioTargetSchema = z.object({
  workspaceId: workspaceIdSchema,
  session: execSessionSchema,
  writable: z.boolean().default(false),
  network: sandboxNetworkSchema.default('none'),
  image: sandboxImageIdSchema.optional(),
  server: mcpStdioServerSchema,
  /** How long the server may take to start and answer (list) or to finish the call. */
  timeoutMs: z.number().int().positive().max(600_000),
});

export const mcpListToolsRequestSchema = mcpStdioTargetSchema;
export const mcpListToolsResultSchema = z.object({
  tools: z.array(
    z.looseObject({ name: z.string(), description: z.string().optional(), inputSchema: z.record(z.string(), z.unknown()) }),
  ),
});
export const mcpCallToolRequestSchema = mcpStdioTargetSchema.extend({
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
/**
 * Where a stdio server of this worker is, asked without waiting: `starting` (with what it wrote
 * to stderr so far, e.g. npm's failed fetches), `running`, or `none` (not started on this worker).
 */
export const mcpServerStateRequestSchema = mcpStdioTargetSchema;
export const mcpServerStateResultSchema = z.object({ state: z.enum(['none', 'starting', 'running']), stderrTail: z.string() });
/** The server's CallToolResult as it sent it; the gateway reads its content. */
export const mcpCallToolResultSchema = z.looseObject({ content: z.array(z.unknown()).default([]), isError: z.boolean().optional() });
