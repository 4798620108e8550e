import { randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import type Docker from 'dockerode';
import { expect } from 'vitest';
import type { SandboxHarness } from './sandbox-harness';

/** A number no other process on the host carries in its command line. */
export function uniqueToken(): string {
  return String(randomInt(100_000, 999_999));
}

/**
 * Host processes whose command line contains `token`. The engine runs on this host, so a
 * container's processes are visible here: this is the host's view, not the sandbox's.
 */
export async function hostProcessesWith(token: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(token)) found.push(`${entry}: ${cmdline.replaceAll('\0', ' ').trim()}`);
  }
  return found;
}

/** Polls a condition until it holds or the deadline passes (awaiting an effect we cannot subscribe to). */
export async function waitFor(what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The worker and the engine survived: a normal run still works, and nothing of this worker is
 * left but idle pooled containers.
 */
export async function expectHealthy(sandbox: SandboxHarness): Promise<void> {
  const result = await sandbox.exec({ mode: 'code', language: 'python', code: 'print(1)' });
  expect(result).toMatchObject({ exitCode: 0, stdout: '1\n', timedOut: false, oomKilled: false });
  // Finished containers are removed just after the reply; a refill may be between create and start.
  const idlePooled = (c: Docker.ContainerInfo) =>
    c.Labels['weft.sandbox.pool'] === '1' && (c.State === 'running' || c.State === 'created');
  // A used pooled container still runs a moment after the reply, until the removal that follows it lands.
  await waitFor('finished containers to be removed', async () => {
    const left = await sandbox.containers();
    return left.every(idlePooled) && left.length <= 2;
  });
}

/** Tries each `host:port` from inside and prints one verdict per line. */
export const CONNECT_PROBE = [
  'import socket, sys',
  'for target in sys.argv[1:]:',
  '    host, port = target.rsplit(":", 1)',
  '    try:',
  '        socket.create_connection((host, int(port)), timeout=2).close()',
  '        print(target, "CONNECTED")',
  '    except Exception as e:',
  '        print(target, type(e).__name__)',
].join('\n');

/** Whether this host (the test process) gets a TCP connection to `host:port` within 2 s: the control for a refusal inside. */
export function hostCanConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
