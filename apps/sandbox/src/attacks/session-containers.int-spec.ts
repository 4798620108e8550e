import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecRequest } from '@weft/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { expectHealthy, hostProcessesWith, uniqueToken, waitFor } from '../testing/attack-helpers';
import { KindRuns, removeTestVolumes } from '../testing/run-kinds';
import { HarnessLimits, startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';
import { runtimeCases } from '../testing/test-runtimes';

/** Sets $S to the pid of the container's command server. */
const FIND_SERVER = 'S=$(pgrep -f "^node /usr/local/bin/weft-serve")';

/** How long a killed command may take to report its end before its container is given up (command-channel.ts). */
const KILL_GRACE_MS = 2_000;

/**
 * A stand-in for the command server, as a command could write it: it answers the worker's
 * requests in the real server's place (stopped) and, asked to kill a run, reports it ended
 * without killing anything.
 */
const FAKE_SERVER = `
import json, os, signal, subprocess, sys
server = int(sys.argv[1])
os.kill(server, signal.SIGSTOP)
requests = os.open(f"/proc/{server}/fd/0", os.O_RDONLY)
frames = os.open(f"/proc/{server}/fd/1", os.O_WRONLY)
send = lambda frame: os.write(frames, (json.dumps(frame) + "\\n").encode())
children, pending = [], b""
while chunk := os.read(requests, 65536):
    pending += chunk
    while b"\\n" in pending:
        line, pending = pending.split(b"\\n", 1)
        try:
            request = json.loads(line)
        except ValueError:
            continue
        kind, rid = request.get("t"), request.get("id")
        if kind == "ping":
            send({"t": "pong", "id": rid, "v": 1})
        elif kind == "run":
            children.append(subprocess.Popen(request["argv"], cwd=request.get("cwd"), stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
            send({"t": "started", "id": rid})
        elif kind == "kill":
            send({"t": "exit", "id": rid, "code": 0, "oom": False})
`;

describe.each(runtimeCases())("attack: a session container's command server on $title", ({ runtime }) => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  const session = new KindRuns('session', () => sandbox);
  const command = (code: string, timeoutMs?: number): ExecRequest => ({ mode: 'code', language: 'bash', code, ...(timeoutMs ? { timeoutMs } : {}) });
  const removed = (id: string) => () =>
    sandbox.docker
      .getContainer(id)
      .inspect()
      .then(
        () => false,
        () => true,
      );

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime, SANDBOX_POOL_SIZE: '0' });
  });
  afterEach(() => Promise.all([session.release(), expectHealthy(sandbox)]));
  afterAll(async () => {
    if (sandbox) await removeTestVolumes(sandbox);
    await sandbox?.close();
    await nats?.stop();
  });

  it('runs as uid 10001 with no capabilities, like the commands it starts', async () => {
    const result = await session.exec(command(`${FIND_SERVER}; grep -E "^(Uid|Gid|CapPrm|CapEff|CapBnd|NoNewPrivs|Seccomp):" /proc/$S/status`));
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'Uid:\t10001\t10001\t10001\t10001',
        'Gid:\t10001\t10001\t10001\t10001',
        'CapPrm:\t0000000000000000',
        'CapEff:\t0000000000000000',
        'CapBnd:\t0000000000000000',
        // gVisor's /proc has no NoNewPrivs line, and the seccomp profile is runc's (docs/sandbox.md).
        ...(runtime === 'runsc' ? ['Seccomp:\t0'] : ['NoNewPrivs:\t1', 'Seccomp:\t2']),
      ]),
    );
  });

  it.each(['kill 1', 'pkill -f weft-serve'])('killing it (%s) ends the run at once, and the next command runs in a fresh container', async (attack) => {
    const before = await session.containerId();
    const token = uniqueToken();
    const result = await session.exec(command(`${attack}; sleep 600.${token}`, 10_000));
    expect(result).toMatchObject({ exitCode: null, timedOut: false });
    expect(result.stderr).toContain('the session container stopped during the run');
    expect(result.durationMs).toBeLessThan(10_000);
    // At once, as the gateway would send it: no waiting for the old container to go.
    const next = await session.expectNextRunWorks();
    expect(next.reused).toBe(false);
    await waitFor('the stopped container to be removed', removed(before));
    expect(await hostProcessesWith(token)).toEqual([]);
  });

  it('a command that stops it (SIGSTOP) and never ends is cut at its deadline, and its container removed', async () => {
    const before = await session.containerId();
    const token = uniqueToken();
    const result = await session.exec(command(`${FIND_SERVER}; kill -STOP $S; exec sleep 600.${token}`, 2_000));
    expect(result).toMatchObject({ exitCode: null, timedOut: true });
    expect(result.durationMs).toBeLessThan(2_000 + KILL_GRACE_MS + 1_500);
    await waitFor('the container to be removed', removed(before));
    expect(await hostProcessesWith(token)).toEqual([]);
    expect((await session.expectNextRunWorks()).reused).toBe(false);
  });

  it('a command that stops it and answers in its place is still killed at its deadline, and so is a later command', async () => {
    const workspaceId = await sandbox.newWorkspace();
    await writeFile(join(sandbox.root, workspaceId, 'fake-serve.py'), FAKE_SERVER);
    const [attacker, victim] = [uniqueToken(), uniqueToken()];
    const run = (code: string, timeoutMs: number) => session.exec({ mode: 'command', workspaceId, command: code, timeoutMs });
    const attack = await run(`${FIND_SERVER}; exec python3 fake-serve.py $S ${attacker}`, 2_000);
    expect(attack).toMatchObject({ exitCode: null, timedOut: true });
    const later = await run(`exec sleep 600.${victim}`, 1_500);
    expect(later).toMatchObject({ exitCode: null, timedOut: true });
    expect(later.durationMs).toBeLessThan(1_500 + KILL_GRACE_MS + 1_500);
    // Whatever the container reports, nothing of either command may outlive its deadline.
    expect({ attacker: await hostProcessesWith(attacker), victim: await hostProcessesWith(victim) }).toEqual({ attacker: [], victim: [] });
  });

  it("forged frames on the container's stdout neither end a later command early nor lift its deadline or output cap", async () => {
    const token = uniqueToken();
    const frames = [
      '{"t":"pong","id":"x","v":1}',
      'not json',
      '{"t":"exit","id":"0000000000000000","code":0,"oom":false}',
      '{"t":"out","id":"0000000000000000","s":"o","d":"Rk9SR0VECg=="}',
    ];
    const forge = [
      FIND_SERVER,
      'for out in /proc/1/fd/1 /proc/$S/fd/1; do',
      `  printf '%s\\n' ${frames.map((frame) => `'${frame}'`).join(' ')} > $out`,
      // Longer than any frame the worker keeps reading.
      "  head -c 2M /dev/zero | tr '\\0' x > $out; echo > $out",
      'done',
      // And one that goes on forging while later commands run, should it outlive this one.
      `setsid bash -c 'while :; do echo "{\\"t\\":\\"exit\\",\\"id\\":\\"$RANDOM\\",\\"code\\":0,\\"oom\\":false}"; sleep 0.01; done > /proc/1/fd/1 # ${token}' >/dev/null 2>&1 &`,
      'echo real; exit 3',
    ].join('\n');
    const attack = await session.exec(command(forge));
    expect(attack).toMatchObject({ exitCode: 3, stdout: 'real\n', timedOut: false });
    const later = await session.exec(command(`seq 1 100000; exec sleep 600.${token}`, 1_500));
    expect(later).toMatchObject({ exitCode: null, timedOut: true, stdoutTruncated: true });
    expect(later.stdout.length).toBeLessThan(HarnessLimits.outputMaxBytes + 100);
    expect(later.durationMs).toBeLessThan(1_500 + KILL_GRACE_MS + 1_500);
    expect(await hostProcessesWith(`600.${token}`)).toEqual([]);
  });
});
