import { execFileSync } from 'node:child_process';
import type { ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, TestImages, type StartedService } from '../../../../test/support/containers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

/** The allow-listing proxy, as compose runs it: read-only, allowing the npm registry only. */
function startProxy(): string {
  return execFileSync(
    'docker',
    ['run', '-d', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '-e', 'PROXY_ALLOWED_HOSTS=registry.npmjs.org', TestImages.proxy],
    { encoding: 'utf8' },
  ).trim();
}

describe('dependency installs through the allow-listing proxy (real Docker, real squid)', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let proxy: string;
  let sessions = 0;
  const session = (ownerId: string): ExecSession => ({ sessionId: `ses_proxy${process.pid}x${++sessions}`, ownerId });
  const run = async (who: ExecSession, command: string) =>
    sandbox.exec({ mode: 'command', workspaceId: await sandbox.newWorkspace(), command, writable: true, network: 'proxy', session: who });

  beforeAll(async () => {
    proxy = startProxy();
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', SANDBOX_PROXY_CONTAINER: proxy });
  });
  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
    if (proxy) execFileSync('docker', ['rm', '-f', proxy], { stdio: 'ignore' });
    for (const network of execFileSync('docker', ['network', 'ls', '-q', '--filter', `name=weft-proxy-${proxy.slice(0, 12)}`], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
      execFileSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
    }
  });

  it('reaches an allowed registry through the proxy', async () => {
    const result = await run(session('usr_proxya'), 'curl -sS --max-time 20 https://registry.npmjs.org/is-number | head -c 200');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/"name": ?"is-number"/);
  });

  it('refuses a host not on the list, naming the host and the setting', async () => {
    const result = await run(session('usr_proxya'), 'curl -sS --max-time 20 http://example.com/ ; curl -sS --max-time 20 -o /dev/null https://example.com/');
    expect(result.stdout).toContain('example.com');
    expect(result.stdout).toContain('WEFT_PROXY_ALLOWED_HOSTS');
    expect(result.stderr).toMatch(/CONNECT tunnel failed, response 403/);
    // For a refused CONNECT clients print only the status; the same words travel in a header.
    const verbose = await run(session('usr_proxya'), "curl -sSv --max-time 20 -o /dev/null https://example.com/ 2>&1 | grep -i '^< x-weft' || true");
    expect(verbose.stdout).toContain("X-Weft-Proxy-Refused: Weft's sandbox proxy refused example.com: it is not on the allow list (WEFT_PROXY_ALLOWED_HOSTS in .env).");
  });

  it('has no route out but the proxy: direct connections fail', async () => {
    const result = await run(session('usr_proxya'), "curl -sS --noproxy '*' --max-time 5 https://registry.npmjs.org/ 2>&1");
    expect(result.stdout).toMatch(/Could not resolve host|Resolving timed out|Failed to connect|Network is unreachable/);
    expect(result.exitCode).not.toBe(0);
  });

  it("puts each user on a network of their own: one user's container cannot reach another's", async () => {
    const ada = session('usr_proxyada');
    const workspace = await sandbox.newWorkspace();
    const inAda = (command: string, timeoutMs?: number) =>
      sandbox.exec({ mode: 'command', workspaceId: workspace, command, writable: true, network: 'proxy', session: ada, ...(timeoutMs ? { timeoutMs } : {}) });
    const serve = inAda('timeout 20 python3 -m http.server 8000 >/dev/null 2>&1; true', 25_000);
    const adaAddress = (await inAda("hostname -I | awk '{print $1}'")).stdout.trim();
    expect(adaAddress).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const probe = `for i in 1 2 3 4 5; do curl -sS --noproxy '*' --max-time 2 -o /dev/null -w 'HTTP%{http_code}' http://${adaAddress}:8000/ 2>&1 && break; sleep 1; done; true`;
    // Another of her containers (her network) reaches the server; Bob's does not.
    expect((await run(session('usr_proxyada'), probe)).stdout).toContain('HTTP200');
    expect((await run(session('usr_proxybob'), probe)).stdout).not.toContain('HTTP200');
    await sandbox.release(ada.sessionId);
    await serve.catch(() => undefined);
  });
});
