import { z } from 'zod';
import { logEnv, natsEnv, readinessEnv, workerMetricsEnv, workspacesEnv } from './common';
import { positiveInt, booleanFlag } from './fields';
import { telemetryEnv } from './telemetry';

const IMAGE_ID = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/**
 * The admin's catalogue of images commands may run in: `id=image` pairs, comma-separated
 * (`dev=weft/sandbox-dev:latest,minimal=weft/sandbox-runtime:latest`).
 */
const imageCatalogue = () =>
  z
    .string()
    .default('dev=weft/sandbox-dev:latest,minimal=weft/sandbox-runtime:latest')
    .transform((list, ctx) => {
      const images: Record<string, string> = {};
      for (const pair of list.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
        const [id, image, ...rest] = pair.split('=');
        if (!id || !image || rest.length > 0 || !IMAGE_ID.test(id)) {
          ctx.addIssue({ code: 'custom', message: `"${pair}" is not id=image (ids: lower-case letters, digits, ".", "_", "-")` });
          return z.NEVER;
        }
        images[id] = image;
      }
      if (Object.keys(images).length === 0) {
        ctx.addIssue({ code: 'custom', message: 'must name at least one image' });
        return z.NEVER;
      }
      return images;
    });

/** The runtimes a sandbox container may run on; `auto` picks runsc where the engine has it. */
export const SANDBOX_RUNTIMES = ['auto', 'runsc', 'runc'] as const;

/** `id=runtime` pairs, comma-separated: catalogue ids that run on a runtime of their own. */
const imageRuntimes = () =>
  z
    .string()
    .default('')
    .transform((list, ctx) => {
      const runtimes: Record<string, 'runsc' | 'runc'> = {};
      for (const pair of list.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
        const [id, runtime, ...rest] = pair.split('=');
        if (!id || !IMAGE_ID.test(id) || (runtime !== 'runsc' && runtime !== 'runc') || rest.length > 0) {
          ctx.addIssue({ code: 'custom', message: `"${pair}" is not id=runc or id=runsc` });
          return z.NEVER;
        }
        runtimes[id] = runtime;
      }
      return runtimes;
    });

const sandboxEnvSchema = z.object({
  ...telemetryEnv,
  ...natsEnv,
  ...readinessEnv,
  ...logEnv,
  ...workspacesEnv,
  ...workerMetricsEnv,
  /**
   * The engine resolves bind sources on the host, so the sandbox must know the host path of
   * the workspaces: either directly, or as the named volume whose mountpoint it looks up.
   */
  WORKSPACES_HOST_DIR: z.string().optional(),
  /** The named volume holding the workspaces (compose's), whose mountpoint the sandbox looks up. */
  WORKSPACES_VOLUME: z.string().optional(),
  /** The image code snippets run in (`execute_code`, the warm pool); commands use SANDBOX_IMAGES. */
  SANDBOX_IMAGE: z.string().default('weft/sandbox-runtime:latest'),
  /** Memory limit of each sandbox container. */
  SANDBOX_MEMORY_MB: positiveInt().default(512),
  /** CPUs each sandbox container may use. */
  SANDBOX_CPUS: z.coerce.number().positive().default(1),
  /** Processes and threads each sandbox container may hold (fork bombs stop here). */
  SANDBOX_PIDS_LIMIT: positiveInt().default(128),
  /** A run's timeout when the request names none; the run is killed after it. */
  SANDBOX_TIMEOUT_MS: positiveInt().default(60_000),
  /** Output kept per stream (stdout, stderr) of a run; the rest is cut and said to be. */
  SANDBOX_OUTPUT_MAX_BYTES: positiveInt().default(64 * 1024),
  /** Size of the writable /tmp of a sandbox container (its root is read-only). */
  SANDBOX_TMPFS_MB: positiveInt().default(64),
  /** Largest file a run may write (the `fsize` ulimit), in the workspace or in /tmp. */
  SANDBOX_FILE_MAX_MB: positiveInt().default(256),
  /** Containers kept started ahead of need for snippets without a workspace; 0 turns the pool off. */
  SANDBOX_POOL_SIZE: z.coerce.number().int().min(0).max(64).default(2),
  /** The most the pool grows to while more snippets than SANDBOX_POOL_SIZE run at once (never below it). */
  SANDBOX_POOL_MAX: z.coerce.number().int().min(0).max(64).default(16),
  /** A pooled container unused for this long is replaced (it also stops by itself). */
  SANDBOX_POOL_MAX_IDLE_MS: positiveInt().min(10_000).default(600_000),
  /**
   * The OCI runtime of every sandbox container: `runsc` (gVisor, a second kernel between each run
   * and the host), `runc`, or `auto`: runsc when the engine lists it, else runc. `runc` by default
   * until every attack suite passes on runsc (docs/sandbox.md: gVisor).
   */
  SANDBOX_RUNTIME: z.enum(SANDBOX_RUNTIMES).default('runc'),
  /**
   * Catalogue ids that run on another runtime than SANDBOX_RUNTIME says, as `id=runc` or `id=runsc`
   * pairs, comma-separated (an image that needs what gVisor lacks: `java=runc`).
   */
  SANDBOX_IMAGE_RUNTIMES: imageRuntimes(),
  /**
   * Stamped on every container this worker starts; the host name when unset (a container's id in
   * Docker). A worker removes at boot what carries its id: give each replica its own where
   * replicas share a host name (host networking).
   */
  SANDBOX_INSTANCE_ID: z
    .string()
    .regex(/^[a-zA-Z0-9_.-]{1,64}$/)
    .optional(),
  /** The Docker engine's socket: the sandbox is the only process that holds it. */
  DOCKER_SOCKET: z.string().default('/var/run/docker.sock'),
  /**
   * Redis of the long-run queue; unset, this worker takes no long runs (request/reply only).
   * The gateway's REDIS_URL.
   */
  REDIS_URL: z.string().optional(),
  /** Must equal the gateway's REDIS_KEY_PREFIX: the queue lives under `<prefix>bull`. */
  REDIS_KEY_PREFIX: z.string().min(1).default('weft:'),
  /** Long runs one worker runs at a time. */
  SANDBOX_LONG_RUN_CONCURRENCY: positiveInt().max(64).default(2),
  /**
   * The bridge network egress runs join, created at start-up when missing. Never the compose
   * network: the deployment's services must stay out of reach.
   */
  SANDBOX_EGRESS_NETWORK: z
    .string()
    .regex(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,63}$/)
    .default('weft-sandbox-egress'),
  /** The catalogue of images commands may run in: `id=image` pairs, comma-separated. */
  SANDBOX_IMAGES: imageCatalogue(),
  /** The catalogue id a command runs in when neither the session nor the workspace picks one. */
  SANDBOX_DEFAULT_IMAGE: z.string().regex(IMAGE_ID).default('dev'),
  /** A session's container with no command for this long stops and is removed. */
  SANDBOX_SESSION_IDLE_MS: positiveInt().min(1_000).default(15 * 60_000),
  /** However busy, a session's container is replaced after this (any replica's sweep removes it). */
  SANDBOX_SESSION_MAX_MS: positiveInt().min(60_000).default(24 * 60 * 60_000),
  /**
   * The allow-listing proxy's container, connected to each user's proxy network; unset, the
   * container labelled `weft.proxy=1` in the sandbox's own compose project or Swarm stack (on its node).
   */
  SANDBOX_PROXY_CONTAINER: z.string().min(1).optional(),
  /** The port the allow-listing proxy listens on. */
  SANDBOX_PROXY_PORT: positiveInt().max(65535).default(3128),
  /**
   * The IPv4 range users' proxy networks take their subnets from, one of SANDBOX_PROXY_SUBNET_PREFIX
   * bits each (the default: 2048 networks of 32 addresses). The networks give the host no address,
   * so an overlap with the host's LAN does not touch its routing; pick a range no other network
   * of the engine's uses.
   */
  SANDBOX_PROXY_SUBNETS: z
    .string()
    .regex(/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/, 'an IPv4 range such as 10.213.0.0/16')
    .default('10.213.0.0/16'),
  /** Each network holds the proxy and one user's session containers: /27 leaves 28 of them. */
  SANDBOX_PROXY_SUBNET_PREFIX: z.coerce.number().int().min(8).max(29).default(27),
  /**
   * A PEM bundle on the engine's host that session containers trust (mounted read-only), for
   * networks whose HTTPS is re-signed by a company proxy. Unset or empty: the image's own CAs.
   */
  SANDBOX_CA_CERTS: z
    .string()
    .optional()
    .transform((path) => (path ? path : undefined)),
  /** Each user's npm, pip, Go and cargo caches in a volume of their own, kept across sessions. */
  SANDBOX_PACKAGE_CACHE: booleanFlag().default(true),
  /**
   * A user's package cache over this many MiB (measured after a command, at most every 30 s per
   * user) is emptied: a cache can be refilled, and nothing else bounds the volume.
   */
  SANDBOX_CACHE_MAX_MB: positiveInt().default(2048),
  /**
   * Start a session's commands through its container's command server (weft-serve, over the
   * attached stdin) instead of `docker exec` each time; off, or with an image without Node,
   * every command is a `docker exec`.
   */
  SANDBOX_COMMAND_SERVER: booleanFlag().default(true),
});

export const sandboxConfigSchema = sandboxEnvSchema.superRefine((config, ctx) => {
  const rangePrefix = Number(config.SANDBOX_PROXY_SUBNETS.split('/')[1]);
  if (rangePrefix > config.SANDBOX_PROXY_SUBNET_PREFIX || config.SANDBOX_PROXY_SUBNETS.split(/[./]/).slice(0, 4).some((o) => Number(o) > 255)) {
    ctx.addIssue({
      code: 'custom',
      path: ['SANDBOX_PROXY_SUBNETS'],
      message: `${config.SANDBOX_PROXY_SUBNETS} is not a range that holds /${config.SANDBOX_PROXY_SUBNET_PREFIX} networks (SANDBOX_PROXY_SUBNET_PREFIX)`,
    });
  }
  const unknown = Object.keys(config.SANDBOX_IMAGE_RUNTIMES).filter((id) => !(id in config.SANDBOX_IMAGES));
  if (unknown.length > 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['SANDBOX_IMAGE_RUNTIMES'],
      message: `${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in SANDBOX_IMAGES (${Object.keys(config.SANDBOX_IMAGES).join(', ')})`,
    });
  }
  if (!(config.SANDBOX_DEFAULT_IMAGE in config.SANDBOX_IMAGES)) {
    ctx.addIssue({
      code: 'custom',
      path: ['SANDBOX_DEFAULT_IMAGE'],
      message: `"${config.SANDBOX_DEFAULT_IMAGE}" is not in SANDBOX_IMAGES (${Object.keys(config.SANDBOX_IMAGES).join(', ')})`,
    });
  }
});
export type SandboxConfig = z.infer<typeof sandboxEnvSchema>;
