import type { ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { removeVolumesOf } from '../testing/run-kinds';

const MIB = 1024 * 1024;

describe('package cache quota (real Docker)', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  let workspaceId: string;
  const owners = ['big', 'small', 'hider'].map((name) => `usr_cache${name}${process.pid}`);
  const sessionOf = (ownerId: string): ExecSession => ({ sessionId: `ses_${ownerId.slice(4)}`, ownerId });
  const run = (ownerId: string, command: string) =>
    sandbox.exec({ mode: 'command', workspaceId, command, writable: true, network: 'none', session: sessionOf(ownerId) });

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', SANDBOX_CACHE_MAX_MB: '1' });
    workspaceId = await sandbox.newWorkspace();
  });
  afterAll(async () => {
    if (sandbox) {
      await Promise.all(owners.map((ownerId) => sandbox.release(sessionOf(ownerId).sessionId)));
      await removeVolumesOf(sandbox, owners);
    }
    await sandbox?.close();
    await nats?.stop();
  });

  it("empties a cache written past SANDBOX_CACHE_MAX_MB, reports what it measured, and leaves another user's cache alone", async () => {
    const [big, small] = owners as [string, string];
    expect((await run(small, 'head -c 200000 /dev/zero > /cache/kept && echo wrote')).stdout).toBe('wrote\n');
    const underCap = await sandbox.cacheQuota.settled(small);
    expect(underCap).toMatchObject({ emptied: false, maxBytes: MIB });
    expect(underCap?.bytes).toBeGreaterThanOrEqual(200_000);
    expect(underCap?.bytes).toBeLessThan(MIB);

    expect((await run(big, 'mkdir -p /cache/npm && head -c 3000000 /dev/zero > /cache/npm/blob && echo wrote')).stdout).toBe('wrote\n');
    const overCap = await sandbox.cacheQuota.settled(big);
    expect(overCap).toMatchObject({ emptied: true, maxBytes: MIB });
    expect(overCap?.bytes).toBeGreaterThanOrEqual(3_000_000);
    expect(sandbox.cacheQuota.measured(big)).toEqual(overCap);

    // The session's container sees the emptied volume; the cache itself stays usable.
    expect((await run(big, 'ls -A /cache | wc -l; touch /cache/again && echo usable')).stdout).toBe('0\nusable\n');
    expect((await run(small, 'wc -c < /cache/kept')).stdout).toBe('200000\n');
  });

  it('empties a cache it cannot read all of: a folder made unreadable does not hide what is under it', async () => {
    const hider = owners[2] as string;
    const hide = 'mkdir /cache/hidden && head -c 3000000 /dev/zero > /cache/hidden/blob && chmod 000 /cache/hidden && echo hid';
    expect((await run(hider, hide)).stdout).toBe('hid\n');
    expect(await sandbox.cacheQuota.settled(hider)).toMatchObject({ bytes: undefined, emptied: true });
    expect((await run(hider, 'ls -A /cache | wc -l')).stdout).toBe('0\n');
  });
});
