import { execFileSync } from 'node:child_process';
import { compose, gatewayUrl } from './stack';

/** The compose services a kill test may stop. */
export type Service = 'gateway' | 'inference' | 'tools' | 'sandbox' | 'redis' | 'nats';

const DEFAULT_WAIT_MS = 90_000;

const containers = new Map<Service, string>();

/**
 * The service's container. A restart (by policy or `start`) keeps it, so it is looked up once:
 * Compose v1 takes seconds to answer on a busy host, and a kill must land when the test says.
 */
export function containerOf(service: Service): string {
  let id = containers.get(service);
  if (!id) {
    id = compose('ps', '-q', service).trim();
    if (!id) throw new Error(`no container for ${service}`);
    containers.set(service, id);
  }
  return id;
}

function inspect(id: string, format: string): string {
  return execFileSync('docker', ['inspect', '--format', format, id], { encoding: 'utf8' }).trim();
}

/** When the service's container last started: a kill test waits for this to change. */
export function startedAt(service: Service): string {
  return inspect(containerOf(service), '{{.State.StartedAt}}');
}

/**
 * SIGKILLs the service's main process from the host, as a crash or the OOM killer would: the
 * restart policy brings the container back. (`docker kill` counts as a manual stop and would not.)
 * Where the host's process table is out of reach, `docker kill` and `start` stand in for it.
 */
export function killService(service: Service): void {
  const id = containerOf(service);
  const pid = Number(inspect(id, '{{.State.Pid}}'));
  try {
    if (!(pid > 0)) throw new Error(`${service} is not running`);
    process.kill(pid, 'SIGKILL');
  } catch {
    execFileSync('docker', ['kill', '--signal', 'KILL', id], { stdio: 'ignore' });
    execFileSync('docker', ['start', id], { stdio: 'ignore' });
  }
}

/** Stops the service's process (SIGSTOP): it holds its connections but answers nothing. */
export function freezeService(service: Service): void {
  const pid = Number(inspect(containerOf(service), '{{.State.Pid}}'));
  process.kill(pid, 'SIGSTOP');
}

/** Lets a stopped service go on (SIGCONT); nothing happens to one that runs. */
export function thawService(service: Service): void {
  try {
    const pid = Number(inspect(containerOf(service), '{{.State.Pid}}'));
    if (pid > 0) process.kill(pid, 'SIGCONT');
  } catch {
    // not running: nothing to thaw
  }
}

/** Stops the service gracefully (SIGTERM), as an operator does; it stays down until `startService`. */
export function stopService(service: Service): void {
  execFileSync('docker', ['stop', containerOf(service)], { stdio: 'ignore' });
}

export function startService(service: Service): void {
  execFileSync('docker', ['start', containerOf(service)], { stdio: 'ignore' });
}

/** Waits until the service runs again (a start after `before`) and reports healthy. */
export async function waitHealthy(service: Service, before?: string, timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let state = '';
  while (Date.now() < deadline) {
    try {
      const id = containerOf(service);
      state = inspect(id, '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}} {{.State.StartedAt}}');
      const [status, health, started] = state.split(' ');
      if (status === 'exited') execFileSync('docker', ['start', id], { stdio: 'ignore' });
      if (status === 'running' && health === 'healthy' && (before === undefined || started !== before)) return;
    } catch {
      // inspect may fail while the engine restarts the container
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${service} did not come back healthy within ${timeoutMs} ms (last state: ${state})`);
}

/** Waits for the gateway's /readyz (Redis and NATS reachable) to answer 200. */
export async function waitReady(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${gatewayUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
      last = `${res.status} ${await res.text()}`;
      if (res.ok) return;
    } catch (error) {
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`gateway not ready within ${timeoutMs} ms: ${last}`);
}

/** Every service of the stack healthy and the gateway ready: what each kill test leaves behind. */
export async function waitStackHealthy(timeoutMs = DEFAULT_WAIT_MS): Promise<void> {
  for (const service of ['nats', 'redis', 'inference', 'tools', 'sandbox', 'gateway'] as const) await waitHealthy(service, undefined, timeoutMs);
  await waitReady(timeoutMs);
}

/** Sandbox containers of a session still on the engine (running or not). */
export function sessionContainers(sessionId: string): string[] {
  const out = execFileSync('docker', ['ps', '-a', '-q', '--filter', `label=weft.sandbox.session=${sessionId}`], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}
