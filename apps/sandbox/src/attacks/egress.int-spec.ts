import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, TestImages, type StartedService } from '../../../../test/support/containers';
import { CONNECT_PROBE as PROBE, expectHealthy, waitFor } from '../testing/attack-helpers';
import { removeTestVolumes, runKinds } from '../testing/run-kinds';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { runtimeCases } from '../testing/test-runtimes';


const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const NETWORK = `weft-test-egress-${process.pid}`;

describe.each(runtimeCases())('attack: egress when the session allows it on $title', ({ runtime }) => {
  let nats: StartedService;
  let redis: StartedService;
  let sandbox: SandboxHarness;
  let server: Docker.Container;
  /** The test's stand-in for the internet: an HTTP server on the egress network, as the host publishes it. */
  let published: string;
  /** The same server by its own address on the bridge, which other runs must not reach. */
  let direct: string;
  const kinds = runKinds(() => sandbox);

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNats(), startRedis()]);
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime, SANDBOX_EGRESS_NETWORK: NETWORK });
    // The worker created the network at start-up.
    const network = await docker.getNetwork(NETWORK).inspect();
    expect(network.Labels).toMatchObject({ 'weft.sandbox': '1', 'weft.sandbox.egress': '1' });
    expect(network.Internal).toBe(false);
    expect(network.Options?.['com.docker.network.bridge.enable_icc']).toBe('false');
    server = await docker.createContainer({
      Image: TestImages.sandbox,
      Cmd: ['python3', '-m', 'http.server', '8000', '--bind', '0.0.0.0'],
      User: '10001:10001',
      WorkingDir: '/tmp',
      ExposedPorts: { '8000/tcp': {} },
      HostConfig: { NetworkMode: NETWORK, PortBindings: { '8000/tcp': [{ HostIp: '0.0.0.0', HostPort: '' }] } },
    });
    await server.start();
    const info = await server.inspect();
    const port = info.NetworkSettings.Ports['8000/tcp']?.find((binding) => binding.HostIp === '0.0.0.0')?.HostPort;
    const gateway = network.IPAM?.Config?.[0]?.Gateway;
    direct = `${info.NetworkSettings.Networks[NETWORK]?.IPAddress}:8000`;
    published = `${gateway}:${port}`;
    // Control: the server answers from the host.
    await waitFor('the test server to listen', async () => (await fetch(`http://127.0.0.1:${port}/`).catch(() => undefined))?.ok === true);
  });
  afterEach(() => Promise.all([...kinds.map((runs) => runs.release()), expectHealthy(sandbox)]));
  afterAll(async () => {
    await server?.remove({ force: true });
    if (sandbox) await removeTestVolumes(sandbox);
    await sandbox?.close();
    await Promise.all([nats?.stop(), redis?.stop()]);
    await docker.getNetwork(NETWORK).remove().catch(() => undefined);
  });

  describe.each(kinds)('in $title', (runs) => {
    it('reaches a server outside the container when the run asks for egress', async () => {
      const workspaceId = await sandbox.newWorkspace();
      const command = `python3 -c 'import urllib.request; print(urllib.request.urlopen("http://${published}/", timeout=5).status)'`;
      const result = await runs.exec({ mode: 'command', workspaceId, command, network: 'egress' });
      expect(result).toMatchObject({ exitCode: 0, stdout: '200\n' });
    });

    it('still reaches nothing without egress: the same server, redis and nats', async () => {
      const result = await runs.exec({ mode: 'code', language: 'bash', code: `python3 -c '${PROBE}' ${published} redis:6379 nats:4222` });
      expect(result.stdout.trim().split('\n')).toEqual([`${published} OSError`, 'redis:6379 gaierror', 'nats:4222 gaierror']);
    });

    it('with egress, cannot resolve or reach redis and nats by name, nor other containers on the egress network', async () => {
      const code = `python3 -c '${PROBE}' redis:6379 nats:4222 ${direct}`;
      const result = await runs.exec({ mode: 'code', language: 'bash', code, network: 'egress' });
      const verdicts = result.stdout.trim().split('\n');
      expect(verdicts.slice(0, 2)).toEqual(['redis:6379 gaierror', 'nats:4222 gaierror']);
      expect(verdicts[2]).not.toContain('CONNECTED');
    });

    it('keeps the hardening of every run on the egress network', async () => {
      // The interfaces through netlink: gVisor's /sys has no class/net.
      const interfaces = `python3 -c 'import socket; print(" ".join(sorted(name for _, name in socket.if_nameindex())))'`;
      const code = `id -u; grep -E "^(CapEff|NoNewPrivs)" /proc/self/status; touch /etc/x || echo read-only; ${interfaces}`;
      const result = await runs.exec({ mode: 'code', language: 'bash', code, network: 'egress' });
      expect(result.stdout).toContain('10001\n');
      expect(result.stdout).toMatch(/CapEff:\s+0000000000000000/);
      // gVisor's /proc has no NoNewPrivs line.
      if (runtime === 'runc') expect(result.stdout).toMatch(/NoNewPrivs:\s+1/);
      expect(result.stdout).toContain('read-only\n');
      expect(result.stdout.trim().split('\n').at(-1)).toBe('eth0 lo');
    });
  });

  it("a session's container with egress cannot reach another session's, of the same user or another", async () => {
    const sessions = kinds.find((runs) => runs.kind === 'session')!;
    const workspaceId = await sandbox.newWorkspace();
    const file = (name: string) => join(sandbox.root, workspaceId, name);
    // The listener's command holds it open until the test is done; it can reach itself (control).
    const listen = [
      'python3 -m http.server 8000 --bind 0.0.0.0 >/dev/null 2>&1 &',
      `until python3 -c '${PROBE}' 127.0.0.1:8000 | grep -q CONNECTED; do sleep 0.1; done`,
      "hostname -I | awk '{print $1}' > address.tmp && mv address.tmp address",
      'while [ ! -e done ]; do sleep 0.05; done',
      `python3 -c '${PROBE}' "$(cat address):8000"`,
    ].join('\n');
    const listener = sessions.exec({ mode: 'command', workspaceId, command: listen, writable: true, network: 'egress', timeoutMs: 30_000 });
    await waitFor('the listener to start', () => readFile(file('address'), 'utf8').then((text) => text.trim() !== '', () => false));
    const target = `${(await readFile(file('address'), 'utf8')).trim()}:8000`;
    const probes = await Promise.all(
      sessions.neighbours().map((neighbour) =>
        neighbour.exec({ mode: 'code', language: 'bash', code: `python3 -c '${PROBE}' ${target}`, network: 'egress' }),
      ),
    );
    for (const probe of probes) {
      // A verdict was printed (the probe ran), and it is not a connection.
      expect(probe.stdout.startsWith(`${target} `)).toBe(true);
      expect(probe.stdout).not.toContain('CONNECTED');
    }
    await writeFile(file('done'), '');
    expect((await listener).stdout).toBe(`${target} CONNECTED\n`);
  });
});
