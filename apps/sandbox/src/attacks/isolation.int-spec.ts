import { createHash } from 'node:crypto';
import { access, lstat, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode } from '@weft/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { expectHealthy, hostProcessesWith, uniqueToken, waitFor } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

const exists = (path: string) => access(path).then(
  () => true,
  () => false,
);
const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe('attack: isolation between runs and sessions', () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url);
    await sandbox.pool.whenFull();
  });
  afterEach(() => expectHealthy(sandbox));
  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
  });

  it('a file written in one run is absent from the next, warm or cold', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const write = 'echo secret > /tmp/left-behind; hostname';
    const read = 'ls -A /tmp; test -e /tmp/left-behind && echo KEPT; hostname';
    for (const [first, second] of [
      [
        await sandbox.exec({ mode: 'code', language: 'bash', code: write }),
        await sandbox.exec({ mode: 'code', language: 'bash', code: read }),
      ],
      [
        await sandbox.exec({ mode: 'command', workspaceId, command: write }),
        await sandbox.exec({ mode: 'command', workspaceId, command: read }),
      ],
    ]) {
      expect(first!.exitCode).toBe(0);
      expect(second!.stdout).not.toContain('KEPT');
      expect(second!.stdout).not.toContain('left-behind');
      // A different container each time: nothing is reused.
      expect(second!.stdout.trim()).not.toBe(first!.stdout.trim());
    }
  });

  it("a run sees none of an earlier run's processes", async () => {
    const token = uniqueToken();
    await sandbox.exec({ mode: 'code', language: 'bash', code: `setsid sleep 4401.${token} & disown; echo ok` });
    const next = await sandbox.exec({ mode: 'code', language: 'bash', code: 'ps -eo args=' });
    expect(next.stdout).not.toContain(token);
    expect(await hostProcessesWith(token)).toEqual([]);
  });

  it('a symlink to /etc/passwd left in the workspace stays a link, and the host file is untouched', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const workspace = join(sandbox.root, workspaceId);
    const before = await sha256('/etc/passwd');
    const command = [
      'ln -s /etc/passwd passwd-link',
      'ln -s / root-link',
      'echo "evil:x:0:0::/:/bin/sh" >> passwd-link',
      'echo "evil:x:0:0::/:/bin/sh" >> root-link/etc/passwd',
      'echo done',
    ].join('; ');
    const result = await sandbox.exec({ mode: 'command', workspaceId, command, writable: true });
    expect(result.stdout).toBe('done\n');
    // Inside, the links resolve to the container's own root, which the sandbox user cannot write.
    expect(result.stderr.match(/(Read-only file system|Permission denied)$/gm)).toHaveLength(2);

    expect(await sha256('/etc/passwd')).toBe(before);
    expect((await lstat(join(workspace, 'passwd-link'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(workspace, 'passwd-link'))).toBe('/etc/passwd');
    // The worker never follows a link out of the workspace when it picks the next run's cwd.
    for (const cwd of ['root-link', 'root-link/etc']) {
      await expect(sandbox.exec({ mode: 'command', workspaceId, cwd, command: 'ls' })).rejects.toMatchObject({
        code: ErrorCode.PathOutsideWorkspace,
      });
    }
    const again = await sandbox.exec({ mode: 'command', workspaceId, command: 'readlink passwd-link; grep -c evil /etc/passwd' });
    expect(again.stdout).toBe('/etc/passwd\n0\n');
  });

  it("two sessions running at once see neither each other's processes nor workspaces", async () => {
    const token = uniqueToken();
    const [a, b] = [await sandbox.newWorkspace(), await sandbox.newWorkspace()];
    const at = (workspaceId: string, file: string) => join(sandbox.root, workspaceId, file);
    await writeFile(at(a, 'only-in-a'), 'a');
    await writeFile(at(b, 'only-in-b'), 'b');
    // Each run holds a marker process, then waits for the test so both are alive at once.
    const script = (self: string, other: string) =>
      [
        `bash -c "exec -a marker-${self}-${token} sleep 60" &`,
        'touch started',
        'while [ ! -e go ]; do sleep 0.02; done',
        'echo "PS: $(ps -eo args= | tr "\\n" "|")"',
        `echo "FILES: $(ls -A /workspace | tr "\\n" " ")"`,
        `test -e ${join(sandbox.root, other)} && echo "SEES ${other}"`,
        `test -e /workspace/only-in-${other === a ? 'a' : 'b'} && echo "SEES OTHER FILE"`,
        'touch listed',
        'while [ ! -e finish ]; do sleep 0.02; done',
      ].join('\n');
    const runs = [
      sandbox.exec({ mode: 'command', workspaceId: a, command: script('a', b), writable: true, timeoutMs: 20_000 }),
      sandbox.exec({ mode: 'command', workspaceId: b, command: script('b', a), writable: true, timeoutMs: 20_000 }),
    ];
    await waitFor('both runs to start', async () => (await exists(at(a, 'started'))) && (await exists(at(b, 'started'))));
    await Promise.all([writeFile(at(a, 'go'), ''), writeFile(at(b, 'go'), '')]);
    await waitFor('both runs to list', async () => (await exists(at(a, 'listed'))) && (await exists(at(b, 'listed'))));
    // From the host, both markers are alive right now.
    const markers = (await hostProcessesWith(token)).filter((line) => line.includes(': marker-'));
    expect(markers).toHaveLength(2);
    await Promise.all([writeFile(at(a, 'finish'), ''), writeFile(at(b, 'finish'), '')]);
    const [ra, rb] = await Promise.all(runs);

    for (const [result, self, other] of [
      [ra!, 'a', 'b'],
      [rb!, 'b', 'a'],
    ] as const) {
      expect(result.exitCode).toBe(0);
      const [ps, files, ...rest] = result.stdout.trim().split('\n');
      expect(ps).toContain(`marker-${self}-${token}`);
      expect(ps).not.toContain(`marker-${other}-${token}`);
      expect(files).toBe(`FILES: go only-in-${self} started`);
      expect(rest).toEqual([]);
    }
  });
});
