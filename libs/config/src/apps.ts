import { z } from 'zod';
import { logEnv, natsEnv, readinessEnv, redisEnv, workerMetricsEnv, workspacesEnv } from './common';
import { positiveInt, booleanFlag, hostList } from './fields';
import { oidcEnv } from './oidc';
import { requestLimitsEnv } from './request-limits';
import { telemetryEnv } from './telemetry';

export const gatewayConfigSchema = z.object({
  ...telemetryEnv,
  ...natsEnv,
  ...redisEnv,
  ...logEnv,
  /** The HTTP port: the API, the OpenAI- and Anthropic-compatible routes and the web page. */
  PORT: positiveInt().default(8080),
  /** The address the HTTP server binds. */
  HOST: z.string().default('0.0.0.0'),
  /** Bootstrap admin credential for `/v1/admin/*`, until an admin user's key takes over (it can then be rotated or turned off). */
  WEFT_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Break glass: at start, puts WEFT_ADMIN_TOKEN back in effect after the bootstrap token was rotated or turned off (audited). Unset it again once an admin is back in. */
  WEFT_ADMIN_TOKEN_RESTORE: booleanFlag().default(false),
  /** A file holding WEFT_ADMIN_TOKEN instead (a Swarm or Kubernetes secret, e.g. `/run/secrets/weft_admin_token`). */
  WEFT_ADMIN_TOKEN_FILE: z.string().min(1).optional(),
  /** Largest accepted workspace upload (compressed). */
  WORKSPACE_UPLOAD_MAX_BYTES: positiveInt().default(8 * 1024 * 1024),
  /** Bytes all of one user's workspaces may hold together; an upload past it is refused with 413. */
  WORKSPACE_QUOTA_BYTES: positiveInt().default(1024 * 1024 * 1024),
  /**
   * Hosts a workspace may be cloned from; `file` allows file:// URLs (tests, air-gapped
   * mirrors). Empty: import from git is off.
   */
  WORKSPACE_GIT_ALLOWED_HOSTS: hostList(),
  /** How long the gateway waits for the tools worker to clone a repository. */
  WORKSPACE_GIT_TIMEOUT_MS: positiveInt().default(120_000),
  /** Model steps one turn may take before it is interrupted. */
  AGENT_MAX_ITERATIONS: positiveInt().default(20),
  /** The most tokens the model may generate in one step of a turn. */
  AGENT_MAX_REPLY_TOKENS: positiveInt().max(32768).default(2048),
  /** How long a turn may wait on one generation before it fails. */
  INFERENCE_TIMEOUT_MS: positiveInt().default(300_000),
  /** The largest request body of the OpenAI and Anthropic routes (the whole conversation each time). */
  COMPAT_BODY_MAX_BYTES: positiveInt().default(16 * 1024 * 1024),
  ...requestLimitsEnv,
  /**
   * Logs, per stateless conversation, where a request changed the one before it (message index
   * and role, never content): why an agent client's prompt was evaluated again. Off by default.
   */
  COMPAT_LOG_PROMPT_CHANGES: booleanFlag().default(false),
  /** How long the gateway waits for a short sandbox run (a command under SANDBOX_LONG_RUN_THRESHOLD_MS). */
  SANDBOX_TIMEOUT_MS: positiveInt().default(120_000),
  /**
   * Whether a session may ask for a sandbox network with egress (`sandboxNetwork: "egress"`).
   * Off by default: runs then never leave their container's loopback.
   */
  SANDBOX_EGRESS_ALLOWED: booleanFlag().default(false),
  /**
   * A new session's sandbox network when it asks for none: `proxy` (package registries through
   * the allow-listing proxy; compose sets it), `none`, or `egress` (needs SANDBOX_EGRESS_ALLOWED).
   */
  SANDBOX_DEFAULT_NETWORK: z.enum(['none', 'proxy', 'egress']).default('none'),
  /**
   * The package managers `weft setup`'s sandbox check installs through (comma-separated: `npm`,
   * `pip`; empty for none): leave out one whose registry this network is not meant to reach.
   */
  SANDBOX_CHECK_PACKAGES: z
    .string()
    .default('npm,pip')
    .transform((list) => list.split(',').map((name) => name.trim()).filter(Boolean))
    .pipe(z.array(z.enum(['npm', 'pip']))),
  /**
   * Whether commands may write to the workspace (`sandboxWorkspace: "read-write"`, the default for
   * new sessions). Off: every session is read-only and asking for writes is refused.
   */
  SANDBOX_WORKSPACE_WRITES: booleanFlag().default(true),
  /** A run asking for a timeout past this goes through the long-run queue, streamed and cancellable. */
  SANDBOX_LONG_RUN_THRESHOLD_MS: positiveInt().default(60_000),
  /** The timeout given to a long run (installs, test suites); the sandbox's cap is 600000. */
  SANDBOX_LONG_RUN_TIMEOUT_MS: positiveInt().max(600_000).default(600_000),
  /** How long a long run may wait in the queue for a sandbox worker before the call fails. */
  SANDBOX_LONG_RUN_QUEUE_MS: positiveInt().default(120_000),
  /**
   * Concurrent turns this gateway replica runs. Turns mostly wait on inference and tools, so this
   * is sized for waiting, not for CPU; the limits that matter are the workers' sequences (served
   * fairly across users) and each user's QUOTA_CONCURRENT_TURNS.
   */
  AGENT_CONCURRENCY: positiveInt().default(32),
  /**
   * How long a replica holds a running turn's job without renewing it; a replica that dies is
   * noticed after about twice this and its turn is resumed by another.
   */
  AGENT_JOB_LOCK_MS: positiveInt().min(500).default(30_000),
  /** The same tool with identical arguments this many times in a row interrupts the turn. */
  AGENT_LOOP_REPEAT_LIMIT: positiveInt().min(2).default(3),
  /** The same tool error this many times in one turn interrupts it. */
  AGENT_REPEATED_ERROR_LIMIT: positiveInt().min(2).default(3),
  /**
   * How long a turn's model step keeps asking, with growing pauses, while no inference worker
   * takes it (every queue full, INFERENCE.BUSY; or none up, as while a lost node's worker is
   * restarted elsewhere) before the turn fails with that.
   */
  AGENT_INFERENCE_BUSY_WAIT_MS: z.coerce.number().int().min(0).default(120_000),
  /** Prompt plus completion tokens one turn may spend before it is interrupted. */
  AGENT_MAX_TURN_TOKENS: positiveInt().default(1_000_000),
  /** Wall time one turn may run (time spent waiting for a permission answer excluded). */
  AGENT_MAX_TURN_MS: positiveInt().default(30 * 60_000),
  /** How long a permission request waits for an answer before it counts as a deny. */
  PERMISSION_TIMEOUT_MS: positiveInt().default(5 * 60_000),
  /**
   * How long a turn waits for a permission answer holding its slot; after that it is parked (its
   * job set aside in Redis, no slot held) and resumed on any replica when the answer comes.
   */
  PERMISSION_PARK_AFTER_MS: z.coerce.number().int().nonnegative().default(2_000),
  /**
   * Server policy that no user, workspace or session can loosen, as JSON:
   * `{"deny":["Bash(curl:*)"],"ask":[],"allow":[]}`. Admins can add more at `/v1/admin/permissions`.
   */
  PERMISSIONS_SERVER_RULES: z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(
      z.strictObject({
        allow: z.array(z.string()).default([]),
        ask: z.array(z.string()).default([]),
        deny: z.array(z.string()).default([]),
      }),
    ),
  /** Per-user default quotas (an admin overrides them per user); 0 turns a quota off. */
  QUOTA_REQUESTS_PER_MINUTE: z.coerce.number().int().min(0).default(600),
  /** Turns one user may have running at once. */
  QUOTA_CONCURRENT_TURNS: z.coerce.number().int().min(0).default(8),
  /** Prompt tokens evaluated plus tokens generated, per UTC day. */
  QUOTA_TOKENS_PER_DAY: z.coerce.number().int().min(0).default(0),
  /** Wall-clock seconds of sandbox runs (commands, tests, installs) per UTC day. */
  QUOTA_SANDBOX_SECONDS_PER_DAY: z.coerce.number().int().min(0).default(0),
  /** Days the per-user usage figures are kept. */
  USAGE_RETENTION_DAYS: positiveInt().default(90),
  /** Days a session's event log (the audit trail) keeps entries; 0 keeps them forever. */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).default(0),
  /** Cap on project (AGENTS.md) and personal instructions each, in characters. */
  INSTRUCTIONS_MAX_CHARS: positiveInt().default(32_000),
  /**
   * MCP servers every session gets, as an `mcpServers` JSON document (the format of `.mcp.json`);
   * `${NAME}` in a url or header reads this process's environment.
   */
  MCP_SERVERS: z.string().default(''),
  /** Hosts a workspace's `.weft/mcp.json` may point the gateway at (`.example.com`: and subdomains); none by default. */
  MCP_ALLOWED_HOSTS: hostList(),
  /** Whether a user's own MCP servers (`PUT /v1/me/mcp`) may include stdio servers (run in their sessions' sandbox containers). */
  MCP_USER_STDIO: booleanFlag().default(true),
  /** Whether a workspace's `.weft/mcp.json` may start stdio servers (in the session's sandbox container). */
  MCP_WORKSPACE_STDIO: booleanFlag().default(false),
  /** How long connecting to a remote (HTTP or SSE) MCP server may take. */
  MCP_CONNECT_TIMEOUT_MS: positiveInt().default(10_000),
  /** How long a stdio server may take to start and list its tools (`npx -y …` downloads it first). */
  MCP_STDIO_START_TIMEOUT_MS: positiveInt().default(60_000),
  /** The longest one MCP tool call may take. */
  MCP_CALL_TIMEOUT_MS: positiveInt().default(120_000),
  ...oidcEnv,
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Environment variables holding remote providers' keys; a model names one with `apiKeyEnv`. */
const API_KEY_VARIABLE = /^[A-Z][A-Z0-9_]*_API_KEY$/;

function collectApiKeys(env: unknown): unknown {
  if (env === null || typeof env !== 'object') return env;
  const keys = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => API_KEY_VARIABLE.test(entry[0]) && typeof entry[1] === 'string' && entry[1] !== ''),
  );
  return { ...env, PROVIDER_API_KEYS: keys };
}

const inferenceEnvSchema = z.object({
  ...telemetryEnv,
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  /** Every `*_API_KEY` variable, gathered here so no other code reads the environment. */
  PROVIDER_API_KEYS: z.record(z.string(), z.string()).default({}),
  /** JSON file declaring the models this worker serves (see config/models.json and the README). */
  MODELS_CONFIG: z.string().default('/etc/weft/models.json'),
  /** Folder that relative GGUF paths and scripted-model scripts are resolved against; pulled models land here. */
  MODELS_DIR: z.string().default('/var/lib/weft/models'),
  /** Where `hf:` model sources are fetched from (huggingface_hub's HF_ENDPOINT): the hub, a mirror, a test server. */
  HF_ENDPOINT: z.url().default('https://huggingface.co'),
  /** This worker's name in the fleet and in its own subject; random per process when unset. */
  WORKER_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, "_" and "-" only')
    .optional(),
  /** How often the worker announces itself; the gateway drops it after about three missed beats. */
  HEARTBEAT_INTERVAL_MS: positiveInt().min(100).default(2000),
  /** Prometheus `/metrics` port; 0 turns the endpoint off. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** The address the `/metrics` endpoint binds. */
  METRICS_HOST: z.string().default('0.0.0.0'),
  /** On SIGTERM, how long in-flight generations may run before they are cut off. */
  DRAIN_TIMEOUT_MS: positiveInt().default(60_000),
  /**
   * Where an evicted session's KV cache is saved (and restored from on its next turn) instead of
   * being recomputed; unset keeps evicted sessions nowhere.
   */
  KV_STATE_DIR: z.string().optional(),
  /** Cap on the saved KV states on disk; the least recently used are deleted first. */
  KV_STATE_MAX_BYTES: positiveInt().default(8 * 1024 * 1024 * 1024),
  /**
   * Which llama.cpp binary node-llama-cpp loads: `auto` (the build scripts/llama/build-addon.sh
   * made from the bundled source, when there is one; else the prebuilt), `local` (that build or
   * fail) or `prebuilt`.
   */
  LLAMA_BINARY: z.enum(['auto', 'local', 'prebuilt']).default('auto'),
  /**
   * What generates a GGUF model's reply token by token: `weft` (Weft's own loop over the
   * sequence's token generator, with less JavaScript per token; native tool calls included) or
   * `llamachat` (node-llama-cpp's LlamaChat, which also serves the chat templates the loop leaves
   * to it either way: thoughts, prefix triggers).
   */
  INFERENCE_GENERATION_LOOP: z.enum(['llamachat', 'weft']).default('weft'),
  /**
   * Memory the worker's loaded GGUF models may take together (weights, KV caches and compute
   * buffers, as node-llama-cpp estimates them: VRAM on a GPU, RAM on a CPU). A request for a model
   * that does not fit unloads the least recently used idle ones first. 0: what the device has
   * less MODELS_MEMORY_MARGIN_BYTES.
   */
  MODELS_MAX_LOADED_BYTES: z.coerce.number().int().min(0).default(0),
  /** Kept free for everything else when MODELS_MAX_LOADED_BYTES is 0. */
  MODELS_MEMORY_MARGIN_BYTES: z.coerce.number().int().min(0).default(1024 * 1024 * 1024),
  /** A loaded model unused for this long is unloaded (pinned ones never are); 0 keeps models loaded. */
  MODELS_IDLE_TTL_MS: z.coerce.number().int().min(0).default(0),
  ...requestLimitsEnv,
  /**
   * How long building one JSON Schema's grammar may take, off the main thread; past it the request
   * is refused (400) and the build stopped. Schemas within the REQUEST_SCHEMA_* limits take well under this.
   */
  INFERENCE_GRAMMAR_BUDGET_MS: positiveInt().default(2000),
});

export const inferenceConfigSchema = z.preprocess(collectApiKeys, inferenceEnvSchema);
export type InferenceConfig = z.infer<typeof inferenceEnvSchema>;

export const toolsConfigSchema = z.object({
  ...telemetryEnv,
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  ...workspacesEnv,
  ...workerMetricsEnv,
  /** The most bytes a whole-file `read_file` returns, and the cap on any file tool's output. */
  READ_FILE_MAX_BYTES: positiveInt().default(256 * 1024),
  /** Cap on a workspace unpacked from an upload. */
  WORKSPACE_MAX_BYTES: positiveInt().default(256 * 1024 * 1024),
  /** Cap on the number of files in a workspace unpacked from an upload. */
  WORKSPACE_MAX_FILES: positiveInt().default(20_000),
  /**
   * Hosts a workspace may be cloned from; `file` allows file:// URLs (tests, air-gapped
   * mirrors). Empty: import from git is off.
   */
  WORKSPACE_GIT_ALLOWED_HOSTS: hostList(),
  /** `git clone` is killed after this. */
  WORKSPACE_GIT_CLONE_TIMEOUT_MS: positiveInt().default(100_000),
});
export type ToolsConfig = z.infer<typeof toolsConfigSchema>;
