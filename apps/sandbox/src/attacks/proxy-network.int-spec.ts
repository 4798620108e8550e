import { createServer, type Server } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, TestImages, type StartedService } from '../../../../test/support/containers';
import { CONNECT_PROBE as PROBE, hostCanConnect } from '../testing/attack-helpers';
import { startTestProxy, type TestProxy } from '../testing/egress-proxy';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { runtimeCases } from '../testing/test-runtimes';

/** The host's own IPv4 addresses (its interfaces and Docker's bridges), loopback aside. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.internal)
    .map((a) => a.address);
}

describe.each(runtimeCases())("attack: a proxied session's network and the Docker host (real Docker, real squid) on $title", ({ runtime }) => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let proxy: TestProxy;
  let listener: Server;
  let port: number;
  const owner = `usr_hostnet${process.pid}`;
  const session: ExecSession = { sessionId: `ses_hostnet${process.pid}`, ownerId: owner };
  let workspaceId: string;
  const run = (command: string) => sandbox.exec({ mode: 'command', workspaceId, command, writable: true, network: 'proxy', session });

  beforeAll(async () => {
    proxy = startTestProxy(TestImages.proxy);
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime, SANDBOX_POOL_SIZE: '0', SANDBOX_PROXY_CONTAINER: proxy.id });
    workspaceId = await sandbox.newWorkspace();
    // A service of the host's listening on every address, as the finding's was.
    listener = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    listener?.close();
    await sandbox?.release(session.sessionId);
    await sandbox?.close();
    await nats?.stop();
    proxy?.stop();
  });

  it("connects to no listener of the host: not through its network's gateway address, not at any other address of the host", async () => {
    expect((await run('true')).exitCode).toBe(0);
    const network = await sandbox.docker.getNetwork(`weft-proxy-${proxy.id.slice(0, 12)}-${owner}`).inspect();
    const ipam = (network.IPAM?.Config as { Gateway?: string; Subnet?: string }[] | undefined)?.[0];
    // Networks from Weft's subnet pool name only their subnet: the address Docker would give the
    // bridge is the subnet's first host.
    const gateway = ipam?.Gateway ?? (ipam?.Subnet ? firstHost(ipam.Subnet) : undefined);
    expect(gateway).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    const addresses = hostAddresses();
    // Control: the listener is live on each of the host's addresses.
    for (const address of addresses) expect(await hostCanConnect(address, port)).toBe(true);

    const targets = [gateway, ...addresses].map((address) => `${address}:${port}`);
    const result = await run(`python3 -c '${PROBE}' ${targets.join(' ')}`);
    const verdicts = result.stdout.trim().split('\n');
    expect(verdicts).toHaveLength(targets.length);
    expect(verdicts.filter((line) => line.endsWith('CONNECTED'))).toEqual([]);
  });

  it('makes again, without a host address, a network an older Weft made with one', async () => {
    const older: ExecSession = { sessionId: `ses_hostold${process.pid}`, ownerId: `usr_hostold${process.pid}` };
    const name = `weft-proxy-${proxy.id.slice(0, 12)}-${older.ownerId}`;
    await sandbox.docker.createNetwork({ Name: name, Driver: 'bridge', Internal: true, Labels: { 'weft.sandbox': '1', 'weft.sandbox.proxy-network': '1' } });
    const result = await sandbox.exec({ mode: 'command', workspaceId, command: 'true', writable: true, network: 'proxy', session: older });
    await sandbox.release(older.sessionId);
    expect(result.exitCode).toBe(0);
    const network = await sandbox.docker.getNetwork(name).inspect();
    expect(network.Options).toMatchObject({ 'com.docker.network.bridge.inhibit_ipv4': 'true' });
  });

  it('still has its one way out: the proxy answers on the network', async () => {
    // A refused name: the proxy answers itself, nothing leaves this machine.
    const result = await run("curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://not-allowed.example/");
    expect(result.stdout).toBe('403');
  });
});

/** `10.213.4.32/27` → `10.213.4.33`. */
function firstHost(subnet: string): string {
  const [base = ''] = subnet.split('/');
  const octets = base.split('.').map(Number);
  octets[3] = (octets[3] ?? 0) + 1;
  return octets.join('.');
}
