import { createHash } from 'node:crypto';
import { access, lstat, mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, type ExecRequest } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { hostProcessesWith, uniqueToken, waitFor } from '../testing/attack-helpers';
import { testOwners } from '../testing/run-kinds';
import { attackSuite } from '../testing/attack-suite';
import { runtimeCases } from '../testing/test-runtimes';

const exists = (path: string) => access(path).then(
  () => true,
  () => false,
);
const sha256 = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

describe.each(runtimeCases())('attack: isolation between runs and sessions on $title', ({ runtime }) => {
  const suite = attackSuite({ runtime });
  const { kinds } = suite;

  describe.each(kinds)('in $title', (runs) => {
    it("a file written in one run is absent from someone else's next run, warm or cold", async () => {
      const workspaceId = await suite.sandbox.newWorkspace();
      const write = 'echo secret > /tmp/left-behind; hostname';
      const read = 'ls -A /tmp; test -e /tmp/left-behind && echo KEPT; hostname';
      // Someone else: the next throwaway run; for sessions, another of the user's, and another user's.
      const neighbours = runs.neighbours();
      const asSnippet = (code: string): ExecRequest => ({ mode: 'code', language: 'bash', code });
      const asCommand = (command: string): ExecRequest => ({ mode: 'command', workspaceId, command });
      // Warm or cold is a throwaway run's distinction; a session runs both in its one container.
      for (const request of runs.kind === 'throwaway' ? [asSnippet, asCommand] : [asCommand]) {
        for (const neighbour of neighbours) {
          const first = await runs.exec(request(write));
          const second = await neighbour.exec(request(read));
          expect(first.exitCode).toBe(0);
          expect(second.stdout).not.toContain('KEPT');
          expect(second.stdout).not.toContain('left-behind');
          // A different container each time: nothing is shared.
          expect(second.stdout.trim().split('\n').at(-1)).not.toBe(first.stdout.trim());
        }
      }
    });

    it("a run sees none of an earlier run's processes, and they are gone", async () => {
      const token = uniqueToken();
      // It waits until the daemon has its own session (its sid is its pid): out of the run's group.
      const code = `setsid sleep 4401.${token} & disown; until [ "$(ps -o sid= -p $! | tr -d ' ')" = "$!" ]; do sleep 0.01; done; echo ok`;
      expect((await runs.exec({ mode: 'code', language: 'bash', code })).stdout).toBe('ok\n');
      for (const neighbour of runs.neighbours()) {
        const next = await neighbour.exec({ mode: 'code', language: 'bash', code: 'ps -eo args=' });
        expect(next.stdout).not.toContain(token);
      }
      expect(await hostProcessesWith(token)).toEqual([]);
    });

    it('a symlink to /etc/passwd left in the workspace stays a link, and the host file is untouched', async () => {
      const workspaceId = await suite.sandbox.newWorkspace();
      const workspace = join(suite.sandbox.root, workspaceId);
      const before = await sha256('/etc/passwd');
      const command = [
        'ln -s /etc/passwd passwd-link',
        'ln -s / root-link',
        'echo "evil:x:0:0::/:/bin/sh" >> passwd-link',
        'echo "evil:x:0:0::/:/bin/sh" >> root-link/etc/passwd',
        'echo done',
      ].join('; ');
      const result = await runs.exec({ mode: 'command', workspaceId, command, writable: true });
      expect(result.stdout).toBe('done\n');
      // Inside, the links resolve to the container's own root, which the sandbox user cannot write.
      expect(result.stderr.match(/(Read-only file system|Permission denied)$/gm)).toHaveLength(2);

      expect(await sha256('/etc/passwd')).toBe(before);
      expect((await lstat(join(workspace, 'passwd-link'))).isSymbolicLink()).toBe(true);
      expect(await readlink(join(workspace, 'passwd-link'))).toBe('/etc/passwd');
      // The worker never follows a link out of the workspace when it picks the next run's cwd.
      for (const cwd of ['root-link', 'root-link/etc']) {
        await expect(runs.exec({ mode: 'command', workspaceId, cwd, command: 'ls' })).rejects.toMatchObject({
          code: ErrorCode.PathOutsideWorkspace,
        });
      }
      const again = await runs.exec({ mode: 'command', workspaceId, command: 'readlink passwd-link; grep -c evil /etc/passwd' });
      expect(again.stdout).toBe('/etc/passwd\n0\n');
    });

    it('cannot write .weft/, directly, through a link, or by moving or replacing it', async () => {
      const workspaceId = await suite.sandbox.newWorkspace();
      const weft = join(suite.sandbox.root, workspaceId, '.weft');
      const settings = '{ "sandboxImage": "dev" }';
      await mkdir(weft);
      await writeFile(join(weft, 'settings.json'), settings);
      const command = [
        'echo evil > .weft/settings.json',
        'touch .weft/evil',
        'ln -s /tmp .weft/link',
        'ln -s .weft/settings.json via-link && echo evil > via-link',
        'mv .weft/settings.json moved.json',
        'mv .weft moved-weft',
        'rm -rf .weft',
        'ln -sfn /tmp .weft',
        'mkdir -p fake/.weft && mv -T fake .weft',
        'echo done',
      ].join('; ');
      const result = await runs.exec({ mode: 'command', workspaceId, command, writable: true });
      expect(result.stdout).toBe('done\n');
      // Seen from the host: still a real folder, holding what it held.
      expect((await lstat(weft)).isDirectory()).toBe(true);
      expect(await readdir(weft)).toEqual(['settings.json']);
      expect(await readFile(join(weft, 'settings.json'), 'utf8')).toBe(settings);
      await runs.expectNextRunWorks();
    });

    it("two runs held alive at once see neither each other's processes nor workspaces", async () => {
      const token = uniqueToken();
      // For sessions: two of one user's, who share the most (a package cache, a proxy network).
      const neighbour = runs.neighbour();
      const [a, b] = [await suite.sandbox.newWorkspace(), await suite.sandbox.newWorkspace()];
      const at = (workspaceId: string, file: string) => join(suite.sandbox.root, workspaceId, file);
      await writeFile(at(a, 'only-in-a'), 'a');
      await writeFile(at(b, 'only-in-b'), 'b');
      // Each run holds a marker process, then waits for the test so both are alive at once.
      const script = (self: string, other: string) =>
        [
          `bash -c "exec -a marker-${self}-${token} sleep 60" &`,
          'touch started',
          'while [ ! -e go ]; do sleep 0.02; done',
          'echo "PS: $(ps -eo args= | tr "\\n" "|")"',
          // A session's writable workspace has a .weft/ the worker made.
          `echo "FILES: $(ls -A /workspace | grep -vx .weft | tr "\\n" " ")"`,
          `test -e ${join(suite.sandbox.root, other)} && echo "SEES ${other}"`,
          `test -e /workspace/only-in-${other === a ? 'a' : 'b'} && echo "SEES OTHER FILE"`,
          'touch listed',
          'while [ ! -e finish ]; do sleep 0.02; done',
        ].join('\n');
      const held = [
        runs.exec({ mode: 'command', workspaceId: a, command: script('a', b), writable: true, timeoutMs: 20_000 }),
        neighbour.exec({ mode: 'command', workspaceId: b, command: script('b', a), writable: true, timeoutMs: 20_000 }),
      ];
      await waitFor('both runs to start', async () => (await exists(at(a, 'started'))) && (await exists(at(b, 'started'))));
      await Promise.all([writeFile(at(a, 'go'), ''), writeFile(at(b, 'go'), '')]);
      await waitFor('both runs to list', async () => (await exists(at(a, 'listed'))) && (await exists(at(b, 'listed'))));
      // From the host, both markers are alive right now.
      const markers = (await hostProcessesWith(token)).filter((line) => line.includes(': marker-'));
      expect(markers).toHaveLength(2);
      await Promise.all([writeFile(at(a, 'finish'), ''), writeFile(at(b, 'finish'), '')]);
      const [ra, rb] = await Promise.all(held);

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

  it("a user's package cache is shared by their own sessions only, never by another user's", async () => {
    const sessions = kinds.find((runs) => runs.kind === 'session')!;
    const token = uniqueToken();
    const bash = (code: string): ExecRequest => ({ mode: 'code', language: 'bash', code });
    expect((await sessions.exec(bash(`echo secret > /cache/left-${token} && echo wrote`))).stdout).toBe('wrote\n');
    // Control: the same user's next session has it, as it has their downloads.
    expect((await sessions.neighbour().exec(bash(`cat /cache/left-${token}`))).stdout).toBe('secret\n');
    const other = await sessions.neighbour(testOwners()[1]).exec(bash(`ls -A /cache; cat /cache/left-${token}`));
    expect(other.stdout).not.toContain(token);
    expect(other.exitCode).not.toBe(0);
  });
});
