import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { CONNECT_PROBE as PROBE, expectHealthy, hostCanConnect } from '../testing/attack-helpers';
import { removeTestVolumes, runKinds } from '../testing/run-kinds';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { runtimeCases } from '../testing/test-runtimes';

describe.each(runtimeCases())('attack: network egress on $title', ({ runtime }) => {
  let nats: StartedService;
  let redis: StartedService;
  let sandbox: SandboxHarness;
  let targets: string[];
  const kinds = runKinds(() => sandbox);

  /** The bridge address, and the host's gateway on that bridge, of the container publishing `inside` as `port`. */
  async function bridgeAddresses(port: number, inside: number): Promise<{ address: string; gateway: string }> {
    const running = await sandbox.docker.listContainers();
    // IPv4 and IPv6 mappings get different host ports, so one container's v6 port may be another's v4 one.
    const owner = running.find((c) =>
      c.Ports.some((p) => p.PublicPort === port && p.PrivatePort === inside && p.IP === '0.0.0.0'),
    );
    const { IPAddress: address, Gateway: gateway } = owner?.NetworkSettings.Networks.bridge ?? {};
    if (!address || !gateway) throw new Error(`no bridge address for the container publishing ${port}`);
    return { address, gateway };
  }

  beforeAll(async () => {
    [nats, redis] = await Promise.all([startNats(), startRedis()]);
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime });
    const { address: natsIp, gateway } = await bridgeAddresses(nats.port, 4222);
    const { address: redisIp } = await bridgeAddresses(redis.port, 6379);
    // Control: from the host every one of these is live, so a refusal inside means something.
    expect(await hostCanConnect(natsIp, 4222)).toBe(true);
    expect(await hostCanConnect(redisIp, 6379)).toBe(true);
    expect(await hostCanConnect(gateway, nats.port)).toBe(true);
    targets = [
      'nats:4222',
      'redis:6379',
      `${natsIp}:4222`,
      `${redisIp}:6379`,
      `${gateway}:${nats.port}`,
      `${gateway}:${redis.port}`,
      '1.1.1.1:53',
      'example.com:443',
    ];
  });
  afterEach(() => Promise.all([...kinds.map((runs) => runs.release()), expectHealthy(sandbox)]));
  afterAll(async () => {
    if (sandbox) await removeTestVolumes(sandbox);
    await sandbox?.close();
    await Promise.all([nats?.stop(), redis?.stop()]);
  });

  describe.each(kinds)('in $title', (runs) => {
    it('reaches nothing from a snippet: not redis, not nats, not the host, not the internet', async () => {
      const result = await runs.exec({ mode: 'code', language: 'bash', code: `python3 -c '${PROBE}' ${targets.join(' ')}` });
      const verdicts = result.stdout.trim().split('\n');
      expect(verdicts).toHaveLength(targets.length);
      expect(verdicts.filter((line) => line.endsWith('CONNECTED'))).toEqual([]);
      // Names do not even resolve.
      expect(verdicts.slice(0, 2)).toEqual(['nats:4222 gaierror', 'redis:6379 gaierror']);
    });

    it('reaches nothing from a command run in a writable workspace either, and has no interface but loopback', async () => {
      const workspaceId = await sandbox.newWorkspace();
      // The interfaces as the kernel lists them (netlink): gVisor's /sys has no class/net.
      const interfaces = `python3 -c 'import socket; print(" ".join(name for _, name in socket.if_nameindex()))'`;
      const command = `python3 -c '${PROBE}' ${targets.join(' ')}; ${interfaces}`;
      const result = await runs.exec({ mode: 'command', workspaceId, command, writable: true });
      expect(result.stdout).not.toContain('CONNECTED');
      expect(result.stdout.trim().split('\n').at(-1)).toBe('lo');
    });
  });
});
