import { z } from 'zod';
import { logEnv, natsEnv, readinessEnv, redisEnv, workspacesEnv } from './common';

const positiveInt = () => z.coerce.number().int().positive();

export const gatewayConfigSchema = z.object({
  ...natsEnv,
  ...redisEnv,
  ...logEnv,
  PORT: positiveInt().default(8080),
  HOST: z.string().default('0.0.0.0'),
  WEFT_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters'),
  /** Largest accepted workspace upload (compressed). */
  WORKSPACE_UPLOAD_MAX_BYTES: positiveInt().default(8 * 1024 * 1024),
  AGENT_MAX_ITERATIONS: positiveInt().default(20),
  AGENT_MAX_REPLY_TOKENS: positiveInt().max(32768).default(2048),
  /** How long a turn may wait on one generation before it fails. */
  INFERENCE_TIMEOUT_MS: positiveInt().default(300_000),
  SANDBOX_TIMEOUT_MS: positiveInt().default(120_000),
  /** Concurrent turns this gateway replica runs. */
  AGENT_CONCURRENCY: positiveInt().default(4),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

export const inferenceConfigSchema = z.object({
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  /** JSON file declaring the models this worker serves (see config/models.json and the README). */
  MODELS_CONFIG: z.string().default('/etc/weft/models.json'),
  /** Folder that relative GGUF paths and scripted-model scripts are resolved against. */
  MODELS_DIR: z.string().default('/var/lib/weft/models'),
});
export type InferenceConfig = z.infer<typeof inferenceConfigSchema>;

export const toolsConfigSchema = z.object({
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  ...workspacesEnv,
  READ_FILE_MAX_BYTES: positiveInt().default(256 * 1024),
  /** Cap on a workspace unpacked from an upload. */
  WORKSPACE_MAX_BYTES: positiveInt().default(256 * 1024 * 1024),
  WORKSPACE_MAX_FILES: positiveInt().default(20_000),
});
export type ToolsConfig = z.infer<typeof toolsConfigSchema>;

export const sandboxConfigSchema = z.object({
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  ...workspacesEnv,
  /**
   * The engine resolves bind sources on the host, so the sandbox must know the host path of
   * the workspaces: either directly, or as the named volume whose mountpoint it looks up.
   */
  WORKSPACES_HOST_DIR: z.string().optional(),
  WORKSPACES_VOLUME: z.string().optional(),
  SANDBOX_IMAGE: z.string().default('weft/sandbox-runtime:latest'),
  SANDBOX_MEMORY_MB: positiveInt().default(512),
  SANDBOX_CPUS: z.coerce.number().positive().default(1),
  SANDBOX_PIDS_LIMIT: positiveInt().default(128),
  SANDBOX_TIMEOUT_MS: positiveInt().default(60_000),
  SANDBOX_OUTPUT_MAX_BYTES: positiveInt().default(64 * 1024),
  SANDBOX_TMPFS_MB: positiveInt().default(64),
  DOCKER_SOCKET: z.string().default('/var/run/docker.sock'),
});
export type SandboxConfig = z.infer<typeof sandboxConfigSchema>;
