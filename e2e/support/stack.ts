import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

export const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

const root = resolve(__dirname, '../..');

/** The compose stack under a project name of its own, so it never touches a developer's. */
export const stackEnv = {
  // A benchmark brings up a stack of its own beside the tests' (bench/fairness).
  COMPOSE_PROJECT_NAME: process.env.WEFT_E2E_PROJECT ?? 'weft-e2e',
  WEFT_PORT: process.env.WEFT_E2E_PORT ?? '18080',
  WEFT_ADMIN_TOKEN: 'e2e-admin-token-0123456789abcdef',
  WEFT_NATS_PASSWORD: 'e2e-nats-services-0123456789',
  WEFT_NATS_WORKER_PASSWORD: 'e2e-nats-workers-0123456789',
  // NATS published as for inference workers on other hosts (remote-worker.e2e-spec); a git
  // server to import workspaces from (docker-compose.e2e.yml).
  COMPOSE_FILE: 'docker-compose.yml:docker-compose.fleet.yml:docker-compose.e2e.yml',
  WEFT_GIT_ALLOWED_HOSTS: 'gitserver',
  // Every service traces to the e2e tier's OTLP receiver (docker-compose.e2e.yml), which keeps the spans.
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otlp:4318',
  WEFT_NATS_PORT: String(Number(process.env.WEFT_E2E_PORT ?? '18080') + 1000),
  WEFT_WORKSPACES_VOLUME: `${process.env.WEFT_E2E_PROJECT ?? 'weft_e2e'}_workspaces`,
  WEFT_SCRIPTS_DIR: './e2e/scripts',
  // This machine's HTTPS is re-signed on the way out: runs must trust the host's bundle.
  ...(existsSync(HOST_CA_BUNDLE) ? { WEFT_SANDBOX_CA_CERTS: HOST_CA_BUNDLE } : {}),
  // Its network reaches npm's registry and not PyPI: `weft setup` checks npm installs alone.
  WEFT_SANDBOX_CHECK_PACKAGES: 'npm',
};

/** nats, redis, gateway, inference, tools, sandbox, proxy, and the e2e tier's gitserver and otlp. */
const SERVICES = 9;

export const gatewayUrl = `http://127.0.0.1:${stackEnv.WEFT_PORT}`;

/** `docker compose` where the plugin exists, Debian's `docker-compose` 1.29 otherwise. */
function composeCommand(): string[] {
  try {
    execFileSync('docker', ['compose', 'version'], { stdio: 'ignore' });
    return ['docker', 'compose'];
  } catch {
    return ['docker-compose'];
  }
}

export function compose(...args: string[]): string {
  return composeWith(stackEnv, ...args);
}

/** Compose with an environment of its own: another project beside the stack (a GPU host's). */
export function composeWith(env: Record<string, string>, ...args: string[]): string {
  const [cmd, ...pre] = composeCommand() as [string, ...string[]];
  return execFileSync(cmd, [...pre, ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function healthOf(containerId: string): string {
  return execFileSync('docker', ['inspect', '--format', '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}', containerId], {
    encoding: 'utf8',
  }).trim();
}

/** Whether every service of the stack is up and healthy now. */
export function isStackHealthy(): boolean {
  try {
    const ids = compose('ps', '-q').split('\n').filter(Boolean);
    return ids.length === SERVICES && ids.map(healthOf).every((s) => s === 'healthy');
  } catch {
    return false;
  }
}

/**
 * The sandbox makes a network per user for the package proxy and keeps it; compose does not know
 * them, so a stack that goes down leaves them behind, and each takes a subnet from Docker's small
 * default pool (about 30) until creating any network fails. Removes those no container uses:
 * a live stack's are in use by its proxy, and any removed one is made again on first use.
 */
export function removeUnusedProxyNetworks(): void {
  execFileSync('docker', ['network', 'prune', '-f', '--filter', 'label=weft.sandbox.proxy-network=1'], { stdio: 'ignore' });
}

export async function startStack(timeoutMs = 240_000): Promise<void> {
  // What an interrupted run left (its volumes: Redis with its users) would leak into this one.
  compose('down', '-v', '--remove-orphans');
  removeUnusedProxyNetworks();
  compose('up', '-d');
  const deadline = Date.now() + timeoutMs;
  let states: string[] = [];
  while (Date.now() < deadline) {
    const ids = compose('ps', '-q').split('\n').filter(Boolean);
    states = ids.map(healthOf);
    if (ids.length === SERVICES && states.every((s) => s === 'healthy')) return;
    if (states.some((s) => s === 'unhealthy' || s === 'exited')) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const logs = compose('logs', '--no-color', '--tail', '40');
  throw new Error(`compose stack did not become healthy: ${states.join(', ')}\n${logs}`);
}

export function stopStack(): void {
  compose('down', '-v', '--remove-orphans');
  removeUnusedProxyNetworks();
}
