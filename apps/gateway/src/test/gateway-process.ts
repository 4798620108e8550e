import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '../../../..');
const PROJECTS = ['libs/contracts', 'libs/config', 'libs/messaging', 'libs/logging', 'apps/gateway'];

/** Builds the gateway and the libs it loads at run time, as `npm run build` does, so a real process can run it. */
export function buildGateway(): void {
  const swc = resolve(ROOT, 'node_modules/.bin/swc');
  for (const project of PROJECTS) {
    execFileSync(
      swc,
      ['src', '-d', 'dist', '--strip-leading-paths', '--config-file', '../../.swcrc', '--ignore', '**/*.spec.ts,**/*.int-spec.ts'],
      { cwd: resolve(ROOT, project), stdio: 'pipe' },
    );
  }
}

export interface GatewayProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** SIGKILL: no shutdown hook runs, no lock is released, as when a machine dies. */
  kill: () => Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Starts `node apps/gateway/dist/main.js` and waits until it answers /healthz. */
export async function startGatewayProcess(env: Record<string, string>, readyWithinMs = 30_000): Promise<GatewayProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [resolve(ROOT, 'apps/gateway/dist/main.js')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`gateway exited with ${child.exitCode}:\n${output}`);
    const ok = await fetch(`${url}/healthz`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`gateway not ready within ${readyWithinMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => output,
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
