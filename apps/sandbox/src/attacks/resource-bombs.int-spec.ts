import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostProcessesWith, uniqueToken, waitFor } from '../testing/attack-helpers';
import { HarnessLimits } from '../testing/sandbox-harness';
import { attackSuite } from '../testing/attack-suite';
import { runtimeCases } from '../testing/test-runtimes';

const MIB = 1024 * 1024;

describe.each(runtimeCases())('attack: resource bombs on $title', ({ runtime }) => {
  const suite = attackSuite({ fillPool: false, runtime });
  const { kinds } = suite;

  describe.each(kinds)('in $title', (runs) => {
    it('a fork loop stops at the pids limit', async () => {
      const code = [
        'import os, time',
        'n = 0',
        'try:',
        '    while True:',
        '        if os.fork() == 0:',
        '            time.sleep(60)',
        '            os._exit(0)',
        '        n += 1',
        'except OSError as e:',
        '    print(n, e.errno)',
      ].join('\n');
      const result = await runs.exec({ mode: 'code', language: 'python', code });
      expect(result.exitCode).toBe(0);
      const [forks, errno] = result.stdout.trim().split(' ').map(Number);
      expect(errno).toBe(11); // EAGAIN
      expect(forks).toBeLessThan(HarnessLimits.pidsLimit);
      await runs.expectNextRunWorks();
    });

    it('a classic fork bomb is contained and killed whole at the timeout', async () => {
      const token = uniqueToken();
      const code = `bomb() { bomb | bomb & }; bomb; sleep 60 # ${token}`;
      const result = await runs.exec({ mode: 'code', language: 'bash', code, timeoutMs: 3_000 });
      expect(result).toMatchObject({ timedOut: true, exitCode: null });
      expect(result.durationMs).toBeLessThan(10_000);
      expect(await hostProcessesWith(token)).toEqual([]);
      await runs.expectNextRunWorks();
    });

    it('opening files without end stops at the nofile limit', async () => {
      const code = [
        'import os',
        'fds = []',
        'try:',
        '    while True:',
        '        fds.append(os.open("/dev/null", os.O_RDONLY))',
        'except OSError as e:',
        '    print(len(fds), e.errno)',
      ].join('\n');
      const result = await runs.exec({ mode: 'code', language: 'python', code });
      const [opened, errno] = result.stdout.trim().split(' ').map(Number);
      expect(errno).toBe(24); // EMFILE
      expect(opened).toBeLessThan(1024);
      const limits = await runs.exec({ mode: 'code', language: 'bash', code: 'ulimit -Hn; ulimit -Hf' });
      expect(limits.stdout).toBe(`1024\n${HarnessLimits.fileMaxMb * 1024}\n`);
    });

    it('a memory bomb is OOM-killed and reported as such', async () => {
      const code = 'chunks = []\nwhile True:\n    chunks.append(bytearray(8 * 1024 * 1024))';
      const result = await runs.exec({ mode: 'code', language: 'python', code });
      expect(result).toMatchObject({ oomKilled: true, timedOut: false });
      expect(result.exitCode).toBe(137);
      await runs.expectNextRunWorks();
    });

    it('filling /tmp stops at the tmpfs size with "No space left on device"', async () => {
      const code = 'for i in $(seq 1 10); do head -c 3M /dev/zero > /tmp/fill$i || break; done; du -sk /tmp | cut -f1';
      const result = await runs.exec({ mode: 'code', language: 'bash', code });
      expect(result.stderr).toContain('No space left on device');
      expect(Number(result.stdout.trim())).toBeLessThanOrEqual(HarnessLimits.tmpfsMb * 1024);
      // A session keeps its full /tmp; its next command still runs.
      await runs.expectNextRunWorks();
    });

    it('one huge file in a writable workspace stops at the fsize limit and the error is reported', async () => {
      const workspaceId = await suite.sandbox.newWorkspace();
      const command = 'head -c 64M /dev/zero > big';
      const result = await runs.exec({ mode: 'command', workspaceId, command, writable: true });
      expect(result.exitCode).toBe(128 + 25); // SIGXFSZ
      expect(result.stderr).toContain('File size limit exceeded');
      const { size } = await stat(join(suite.sandbox.root, workspaceId, 'big'));
      expect(size).toBeLessThanOrEqual(HarnessLimits.fileMaxMb * MIB);
      await runs.expectNextRunWorks();
    });

    it('a flood of stdout is truncated and the worker does not buffer it', async () => {
      // Both kinds answer through a command server (a session's, or a pooled snippet's one-shot
      // one), where every chunk is a base64 JSON frame (about 20 MB/s on 2 cores): 128 MiB.
      // Buffered, its frames alone (4/3 of it in base64, about 171 MiB) would pass the bound
      // below. Unbuffered, the garbage the frames leave until V8 collects it still grew the RSS
      // by up to 139 MB in a CI run at full load, so the bound sits between the two.
      const mib = 128;
      const bound = 160 * MIB;
      const before = process.memoryUsage().rss;
      const code = `head -c ${mib}M /dev/zero; echo finished >&2`;
      const result = await runs.exec({ mode: 'code', language: 'bash', code, timeoutMs: 60_000 });
      expect(result).toMatchObject({ exitCode: 0, stdoutTruncated: true, stderr: 'finished\n', timedOut: false });
      const half = '\0'.repeat(HarnessLimits.outputMaxBytes / 2);
      expect(result.stdout).toBe(`${half}\n[... ${mib * MIB - HarnessLimits.outputMaxBytes} bytes cut ...]\n${half}`);
      expect(process.memoryUsage().rss - before).toBeLessThan(bound);
    });

    it('sleeping forever with a background child and a setsid daemon is killed whole at the timeout', async () => {
      const token = uniqueToken();
      const code = [
        `sleep 4201.${token} &`,
        `setsid sleep 4202.${token} &`,
        `nohup setsid sleep 4203.${token} >/dev/null 2>&1 & disown`,
        `exec sleep 4204.${token}`,
      ].join('\n');
      const run = runs.exec({ mode: 'code', language: 'bash', code, timeoutMs: 2_000 });
      // Seen from the host while the run lives: all four really started.
      await waitFor('the four sleeps', async () => (await hostProcessesWith(token)).length === 4);
      const result = await run;
      expect(result).toMatchObject({ timedOut: true, exitCode: null });
      expect(await hostProcessesWith(token)).toEqual([]);
    });

    it('background and detached processes die with a run that exits normally', async () => {
      const token = uniqueToken();
      const workspaceId = await suite.sandbox.newWorkspace();
      // It waits until the daemon has its own session (its sid is its pid), out of the run's group.
      const detached = `until [ "$(ps -o sid= -p $! | tr -d ' ')" = "$!" ]; do sleep 0.01; done`;
      const command = `(sleep 4301.${token} &); setsid sleep 4302.${token} & disown; ${detached}; echo left`;
      const result = await runs.exec({ mode: 'command', workspaceId, command });
      expect(result).toMatchObject({ exitCode: 0, stdout: 'left\n', timedOut: false });
      expect(await hostProcessesWith(token)).toEqual([]);
    });
  });
});
