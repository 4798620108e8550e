import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, TestImages, type StartedService } from '../../../../test/support/containers';
import { waitFor } from '../testing/attack-helpers';
import { startTestProxy, type TestProxy } from '../testing/egress-proxy';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

/**
 * The proxy's descriptors, scaled down so that one run's connections (its own nofile is 1024)
 * can use them all up: the shape of the finding (thousands of idle connections against squid's
 * 4096) in bounded counts.
 */
const PROXY_NOFILE = 512;
const HOARDED = 900;

/** Opens HOARDED idle connections to the proxy, writes how many are up to /workspace/ready, and holds them. */
const HOARDER = `
import socket, time
address = (socket.gethostbyname("weft-proxy"), 3128)
held = []
for _ in range(${HOARDED}):
    s = socket.socket()
    s.setblocking(False)
    try:
        s.connect(address)
    except OSError:
        pass
    held.append(s)
time.sleep(3)
established = sum(1 for line in open("/proc/net/tcp").readlines()[1:] if line.split()[3] == "01")
open("/workspace/ready", "w").write("%d" % established)
time.sleep(25)
`;

describe('attack: one user starving the shared package proxy (real Docker, real squid)', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let proxy: TestProxy;
  const pid = process.pid;
  const hoarder: ExecSession = { sessionId: `ses_hoard${pid}`, ownerId: `usr_hoard${pid}` };
  const victim: ExecSession = { sessionId: `ses_victim${pid}`, ownerId: `usr_victim${pid}` };

  beforeAll(async () => {
    proxy = startTestProxy(TestImages.proxy, 'registry.npmjs.org', ['--ulimit', `nofile=${PROXY_NOFILE}:${PROXY_NOFILE}`]);
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', SANDBOX_PROXY_CONTAINER: proxy.id, SANDBOX_PACKAGE_CACHE: 'false' });
  });
  afterAll(async () => {
    await sandbox?.release(hoarder.sessionId);
    await sandbox?.release(victim.sessionId);
    await sandbox?.close();
    await nats?.stop();
    proxy?.stop();
  });

  it("serves another user's request while one run holds hundreds of idle connections", async () => {
    const hoarderWorkspace = await sandbox.newWorkspace();
    const victimWorkspace = await sandbox.newWorkspace();
    // The victim's network and container exist before the flood, so only the proxy is measured.
    const warm = await sandbox.exec({ mode: 'command', workspaceId: victimWorkspace, command: 'true', writable: true, network: 'proxy', session: victim });
    expect(warm.exitCode).toBe(0);

    const flood = sandbox.exec({
      mode: 'command', workspaceId: hoarderWorkspace, command: `python3 -c '${HOARDER}'`, writable: true, network: 'proxy', session: hoarder, timeoutMs: 50_000,
    });
    const ready = join(sandbox.root, hoarderWorkspace, 'ready');
    await waitFor('the hoarder to open its connections', async () => existsSync(ready), 40_000);
    // The flood is real: more connections up than the proxy's per-client limit.
    expect(Number(readFileSync(ready, 'utf8'))).toBeGreaterThan(128);

    // A name the proxy refuses itself: its 403 shows it accepted and answered, and nothing leaves this machine.
    const request = await sandbox.exec({
      mode: 'command', workspaceId: victimWorkspace, writable: true, network: 'proxy', session: victim,
      command: "curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://not-allowed.example/",
    });
    expect(request.stdout).toBe("403");
    await sandbox.release(hoarder.sessionId);
    await flood.catch(() => undefined);
  });
});
