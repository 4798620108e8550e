import { readdir, readFile } from 'node:fs/promises';
import type { ExecRequest } from '@weft/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { expectHealthy, uniqueToken } from '../testing/attack-helpers';
import { startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

/**
 * Everything a snippet can try against the one-shot command server (PID 1 of its pooled
 * container) that answers for it: the worker replies on that server's word that every process
 * of the snippet is dead, so the word must be the server's alone.
 */
const AGAINST_THE_SERVER = [
  'import ctypes, os, signal, socket, time',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'def attempt(name, action):',
  '    try:',
  '        action()',
  '        print(name, "DONE")',
  '    except OSError as e:',
  '        print(name, e.errno)',
  'def ptrace():',
  '    if libc.ptrace(16, 1, None, None) != 0: raise OSError(ctypes.get_errno(), "ptrace")',
  'for sig in (signal.SIGSTOP, signal.SIGKILL, signal.SIGTERM):',
  '    os.kill(1, sig)',
  'attempt("ptrace", ptrace)',
  'attempt("stdin", lambda: os.open("/proc/1/fd/0", os.O_RDONLY))',
  'attempt("stdout", lambda: os.open("/proc/1/fd/1", os.O_WRONLY))',
  'attempt("mem", lambda: os.open("/proc/1/mem", os.O_RDONLY))',
  'attempt("environ", lambda: os.open("/proc/1/environ", os.O_RDONLY))',
  // SIGUSR1 opens a Node inspector on 127.0.0.1:9229 unless the server disabled it.
  'os.kill(1, signal.SIGUSR1)',
  'time.sleep(0.5)',
  'attempt("inspector", lambda: socket.create_connection(("127.0.0.1", 9229), timeout=1).close())',
  'print(open("/proc/1/stat").read().split()[2])',
  // A forged end, on the snippet's own stdout: it reaches the worker as output, nothing more.
  'print(\'{"t":"exit","id":"x","code":0,"oom":false}\', flush=True)',
  'raise SystemExit(3)',
].join('\n');

/**
 * Host threads whose command line holds `token`. Per thread: a leader that exited alone has no
 * command line of its own while its other threads still run.
 */
async function hostTasksWith(token: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    for (const tid of await readdir(`/proc/${pid}/task`).catch(() => [])) {
      const cmdline = await readFile(`/proc/${pid}/task/${tid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(token)) found.push(`${pid}/${tid}: ${cmdline.replaceAll('\0', ' ').trim()}`);
    }
  }
  return found;
}

describe("attack: a pooled snippet container's one-shot command server", () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  const snippet = async (request: Omit<Extract<ExecRequest, { mode: 'code' }>, 'mode'>) => {
    await sandbox.pool.whenFull();
    const hits = sandbox.pool.stats.hits;
    const result = await sandbox.exec({ mode: 'code', ...request });
    // Served by the pool, not by a cold start.
    expect(sandbox.pool.stats.hits).toBe(hits + 1);
    return result;
  };

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url);
  });
  afterEach(() => expectHealthy(sandbox));
  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
  });

  it('cannot be stopped, killed, traced, read or impersonated by the snippet', async () => {
    const result = await snippet({ language: 'python', code: AGAINST_THE_SERVER });
    const EPERM = 1;
    const EACCES = 13;
    expect(result.exitCode).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual([
      `ptrace ${EPERM}`,
      `stdin ${EACCES}`,
      `stdout ${EACCES}`,
      `mem ${EACCES}`,
      `environ ${EACCES}`,
      'inspector 111', // ECONNREFUSED: no inspector opened
      'S', // still running (sleeping), not stopped
      '{"t":"exit","id":"x","code":0,"oom":false}',
    ]);
  });

  it('leaves no process of the snippet alive at the reply: detached, double-forked, or a leader gone with its threads running', async () => {
    const token = uniqueToken();
    // A leader that exits alone (SYS_exit) shows as a zombie while its thread runs on.
    const leaderless = [
      'import ctypes, threading, time',
      'threading.Thread(target=lambda: time.sleep(60)).start()',
      'ctypes.CDLL(None).syscall(60, 0)',
    ].join('; ');
    const code = [
      `setsid sleep 4501.${token} & disown`,
      `(sleep 4502.${token} &)`,
      `nohup setsid bash -c 'trap "" TERM HUP; exec sleep 4503.${token}' >/dev/null 2>&1 &`,
      `setsid python3 -c '${leaderless}' 4504.${token} & L=$!`,
      // Every one has started before the snippet ends, the leader gone and its thread running.
      `until [ "$(pgrep -fc ${token})" -ge 3 ] && grep -q '^State:.*Z' /proc/$L/status && [ "$(ls /proc/$L/task | wc -l)" -ge 2 ]; do sleep 0.01; done`,
      'echo left',
    ].join('\n');
    const result = await snippet({ language: 'bash', code });
    expect(result).toMatchObject({ exitCode: 0, stdout: 'left\n', timedOut: false });
    // Right at the reply, before anything else runs: seen from the host, thread by thread.
    expect(await hostTasksWith(token)).toEqual([]);
  });

  it("cannot read a previous snippet's files, and the next snippet gets another container", async () => {
    const first = await snippet({ language: 'bash', code: 'echo secret > /tmp/left-behind; echo secret > $HOME/.history; hostname' });
    const second = await snippet({ language: 'bash', code: 'cat /tmp/left-behind $HOME/.history 2>&1; ls -A /tmp; hostname' });
    expect(second.stdout).not.toContain('secret');
    expect(second.stdout.trim().split('\n').at(-1)).not.toBe(first.stdout.trim());
  });

  it('gives the snippet its stdin, the environment of a cold run and a killed run its exit', async () => {
    const echo = await snippet({ language: 'node', code: 'process.stdin.pipe(process.stdout); console.error(Object.keys(process.env).filter((k) => k.startsWith("WEFT")).length)', stdin: 'hi\n' });
    expect(echo).toMatchObject({ exitCode: 0, stdout: 'hi\n', stderr: '0\n' });
    const killed = await snippet({ language: 'bash', code: 'kill -9 $$' });
    expect(killed).toMatchObject({ exitCode: 137, timedOut: false });
  });
});
