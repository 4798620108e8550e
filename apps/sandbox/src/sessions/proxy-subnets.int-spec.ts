import { AppError, ErrorCode, type ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, TestImages, type StartedService } from '../../../../test/support/containers';
import { SubnetPool } from '../docker/subnet-pool';
import { startTestProxy, type TestProxy } from '../testing/egress-proxy';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

/** Ranges of this test's own, away from the default (10.213.0.0/16) other suites use. */
const RANGE = { range: '10.231.0.0/16', prefix: 28 } as const;
const FULL = { range: '10.232.0.0/28', prefix: 28 } as const;
const USERS = 100;

describe("users' proxy networks take subnets from the range Weft configures (real Docker)", () => {
  let nats: StartedService;
  let proxy: TestProxy;
  let sandbox: SandboxHarness;
  let small: SandboxHarness;
  const owner = (i: number) => `usr_subnet${process.pid}x${i}`;
  const last: ExecSession = { sessionId: `ses_subnet${process.pid}last`, ownerId: owner(USERS) };

  beforeAll(async () => {
    // Its networks are named after it, and its stop() removes them: that is the cleanup.
    proxy = startTestProxy(TestImages.proxy);
    nats = await startNats();
    const env = { SANDBOX_POOL_SIZE: '0', SANDBOX_PROXY_CONTAINER: proxy.id };
    sandbox = await startSandboxHarness(nats.url, { ...env, SANDBOX_PROXY_SUBNETS: RANGE.range, SANDBOX_PROXY_SUBNET_PREFIX: String(RANGE.prefix) });
    small = await startSandboxHarness(nats.url, { ...env, SANDBOX_PROXY_SUBNETS: FULL.range, SANDBOX_PROXY_SUBNET_PREFIX: String(FULL.prefix) });
  });
  afterAll(async () => {
    await sandbox?.release(last.sessionId);
    await sandbox?.close();
    await small?.close();
    await nats?.stop();
    proxy?.stop();
  });

  it('gives 100 users a subnet each from the range, and the proxy answers on the 100th', async () => {
    const routes = [];
    // A few at once, as replicas and concurrent sessions would: a race for a slot moves on.
    for (let i = 1; i <= USERS; i += 5) {
      routes.push(...(await Promise.all([0, 1, 2, 3, 4].map((k) => sandbox.proxyNetworks.routeFor(owner(i + k))))));
    }
    const pool = new SubnetPool(RANGE.range, RANGE.prefix);
    const subnets = await Promise.all(
      routes.map(async (route) => {
        const network = await sandbox.docker.getNetwork(route.network).inspect();
        expect(network.Options).toMatchObject({ 'com.docker.network.bridge.inhibit_ipv4': 'true' });
        return (network.IPAM?.Config as { Subnet?: string }[])[0]?.Subnet ?? '';
      }),
    );
    expect(subnets.every((subnet) => pool.contains(subnet))).toBe(true);
    expect(new Set(subnets).size).toBe(USERS);

    const workspaceId = await sandbox.newWorkspace();
    // A refused name: the proxy answers itself, nothing leaves this machine. Straight to this
    // worker's service: over NATS the queue group may hand the run to the other harness's worker,
    // which has other workspaces.
    const result = await sandbox.service.run({
      mode: 'command',
      workspaceId,
      command: "curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://not-allowed.example/",
      writable: false,
      network: 'proxy',
      session: last,
    });
    expect(result.stdout).toBe('403');
  }, 300_000);

  it('refuses a network once the range is full, with an error naming the setting to change', async () => {
    await small.proxyNetworks.routeFor(`usr_subfull${process.pid}a`);
    const refused = await small.proxyNetworks.routeFor(`usr_subfull${process.pid}b`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({
      code: ErrorCode.SandboxUnavailable,
      retryable: false,
      details: { setting: 'SANDBOX_PROXY_SUBNETS', range: FULL.range, networks: 1 },
    });
    expect((refused as AppError).message).toMatch(/WEFT_SANDBOX_PROXY_SUBNETS/);
  });
});
