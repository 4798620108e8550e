import { chmod, mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, sandboxConfigSchema } from '@weft/config';
import { Routes, type ExecRequest, type ExecResult } from '@weft/contracts';
import { connectRpcClient } from '@weft/messaging';
import Docker from 'dockerode';
import { createSandboxApp } from '../app';
import { CacheQuota } from '../cache/cache-quota';
import { ExecService } from '../exec/exec.service';
import { WarmPool } from '../pool/warm-pool';
import { ProxyNetworks } from '../sessions/proxy-networks';

/** Tight limits so every bomb ends fast on a 2-core machine. */
export const HarnessLimits = {
  memoryMb: 128,
  pidsLimit: 64,
  tmpfsMb: 16,
  fileMaxMb: 8,
  outputMaxBytes: 4096,
  timeoutMs: 10_000,
} as const;

export interface SandboxHarness {
  /** The worker's view of the workspaces volume (a real temp folder). */
  root: string;
  /** Stamped on every container this harness's worker starts. */
  instance: string;
  docker: Docker;
  pool: WarmPool;
  /** The worker's own service, for runs with a signal (cancel). */
  service: ExecService;
  /** The worker's package cache quota, to await a user's check. */
  cacheQuota: CacheQuota;
  /** The worker's users' proxy networks, to make one without a command. */
  proxyNetworks: ProxyNetworks;
  exec(request: ExecRequest): Promise<ExecResult>;
  /** Removes a session's containers, as the gateway asks when a session is deleted. */
  release(sessionId: string): Promise<number>;
  /** A fresh workspace the sandbox user (uid 10001) may write to. */
  newWorkspace(): Promise<string>;
  /** Containers of this worker, idle pooled ones included. */
  containers(): Promise<Docker.ContainerInfo[]>;
  close(): Promise<void>;
}

const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
let counter = 0;

/**
 * A real sandbox worker on a real NATS server and the real Docker engine, reached through the
 * same request the gateway sends. Integration tests only.
 */
export async function startSandboxHarness(natsUrl: string, env: Record<string, string> = {}): Promise<SandboxHarness> {
  const instance = `harness-${process.pid}-${++counter}`;
  const root = await realpath(await mkdtemp(join(tmpdir(), 'weft-sandbox-')));
  const runtimeImage = process.env.WEFT_SANDBOX_IMAGE ?? 'weft/sandbox-runtime:latest';
  const config = loadConfig(sandboxConfigSchema, {
    NATS_URL: natsUrl,
    WORKSPACES_DIR: root,
    SANDBOX_IMAGE: runtimeImage,
    SANDBOX_IMAGES: `dev=${process.env.WEFT_SANDBOX_DEV_IMAGE ?? 'weft/sandbox-dev:latest'},minimal=${runtimeImage}`,
    SANDBOX_MEMORY_MB: String(HarnessLimits.memoryMb),
    SANDBOX_PIDS_LIMIT: String(HarnessLimits.pidsLimit),
    SANDBOX_TMPFS_MB: String(HarnessLimits.tmpfsMb),
    SANDBOX_FILE_MAX_MB: String(HarnessLimits.fileMaxMb),
    SANDBOX_OUTPUT_MAX_BYTES: String(HarnessLimits.outputMaxBytes),
    SANDBOX_TIMEOUT_MS: String(HarnessLimits.timeoutMs),
    SANDBOX_POOL_SIZE: '2',
    // Fixed at two unless a test asks for growth: the attack suites count what is left idle.
    SANDBOX_POOL_MAX: '2',
    SANDBOX_INSTANCE_ID: instance,
    LOG_LEVEL: 'silent',
    // Not auto: a suite runs on the runtime it names (attackSuite's `runtime`), runc unless it does.
    SANDBOX_RUNTIME: 'runc',
    // This machine's HTTPS is re-signed on the way out: proxied runs must trust the host's bundle.
    ...(existsSync(HOST_CA_BUNDLE) ? { SANDBOX_CA_CERTS: HOST_CA_BUNDLE } : {}),
    ...env,
  });
  const app: INestMicroservice = await createSandboxApp(config);
  await app.listen();
  const rpc = await connectRpcClient(natsUrl, 60_000);
  const docker = new Docker({ socketPath: config.DOCKER_SOCKET });
  let workspaces = 0;
  return {
    root,
    instance,
    docker,
    pool: app.get(WarmPool),
    service: app.get(ExecService),
    cacheQuota: app.get(CacheQuota),
    proxyNetworks: app.get(ProxyNetworks),
    exec: (request) => rpc.client.request(Routes.sandboxExec, request, { timeoutMs: 60_000 }),
    release: async (sessionId) => (await rpc.client.request(Routes.sandboxReleaseSession, { sessionId }, { timeoutMs: 30_000 })).removed,
    async newWorkspace() {
      const id = `ws_${instance.replace(/[^a-zA-Z0-9]/g, '')}${String(++workspaces).padStart(3, '0')}`;
      await mkdir(join(root, id));
      await chmod(join(root, id), 0o777);
      return id;
    },
    containers: () =>
      docker.listContainers({ all: true, filters: { label: [`weft.sandbox.instance=${instance}`] } }),
    async close() {
      await rpc.close();
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}
