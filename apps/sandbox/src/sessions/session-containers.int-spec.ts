import { chmod, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, type ExecRequest, type ExecSession } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import { seccompProfile } from '../docker/seccomp-profile';
import { waitFor } from '../testing/attack-helpers';
import { HarnessLimits, startSandboxHarness, type SandboxHarness } from '../testing/sandbox-harness';

let sessions = 0;
function newSession(ownerId = 'usr_owner01'): ExecSession {
  return { sessionId: `ses_itest${process.pid}x${String(++sessions).padStart(3, '0')}`, ownerId };
}

describe("a session's warm container (real Docker, real NATS)", () => {
  let nats: StartedService;
  let sandbox: SandboxHarness;
  const run = (session: ExecSession, workspaceId: string, command: string, extra: Partial<Extract<ExecRequest, { mode: 'command' }>> = {}) =>
    sandbox.exec({ mode: 'command', workspaceId, command, writable: true, session, ...extra });
  const containersOf = async (session: ExecSession) =>
    (await sandbox.containers()).filter((c) => c.Labels['weft.sandbox.session'] === session.sessionId);

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', SANDBOX_SESSION_IDLE_MS: '3000' });
  });
  afterAll(async () => {
    await sandbox?.close();
    await nats?.stop();
  });

  it('is made by the first command and reused by the next, keeping what the first left', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    const first = await run(session, workspaceId, 'hostname; echo kept > /tmp/state; python3 -m venv .venv && echo venv-made');
    const second = await run(session, workspaceId, 'hostname; cat /tmp/state; .venv/bin/python -c "print(42)"');
    expect(first).toMatchObject({ exitCode: 0, reused: false, image: 'dev' });
    expect(second).toMatchObject({ exitCode: 0, reused: true, image: 'dev' });
    const [host1] = first.stdout.split('\n');
    const [host2, state, answer] = second.stdout.split('\n');
    expect(host2).toBe(host1);
    expect([state, answer]).toEqual(['kept', '42']);
    expect(await containersOf(session)).toHaveLength(1);
  });

  it("starts commands through the container's command server, also for a second worker that adopts the container", async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    const parent = 'ps -o args= -p $PPID';
    expect((await run(session, workspaceId, parent)).stdout.trim()).toBe('node /usr/local/bin/weft-serve');
    // A replica finds the same container by its name and attaches to the same server.
    const replica = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', WORKSPACES_DIR: sandbox.root });
    try {
      const request = { mode: 'command', workspaceId, command: `${parent}; hostname`, writable: true, network: 'none', session } as const;
      const [mine, theirs] = await Promise.all([run(session, workspaceId, `${parent}; hostname`), replica.service.run(request)]);
      expect(theirs).toMatchObject({ exitCode: 0, reused: true });
      expect(theirs.stdout).toBe(mine.stdout);
      expect(theirs.stdout.split('\n')[0]).toBe('node /usr/local/bin/weft-serve');
    } finally {
      await replica.close();
    }
  });

  it('falls back to docker exec, with the same results, when the command server is turned off', async () => {
    const execOnly = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0', SANDBOX_COMMAND_SERVER: 'false' });
    try {
      const session = newSession();
      const workspaceId = await execOnly.newWorkspace();
      const request = { mode: 'command', workspaceId, writable: true, network: 'none', session } as const;
      const first = await execOnly.service.run({ ...request, command: 'ps -o comm= -p $PPID; echo out; echo err >&2; exit 3' });
      expect(first).toMatchObject({ exitCode: 3, stdout: 'weft-exec\nout\n', stderr: 'err\n', reused: false });
      expect(await execOnly.service.run({ ...request, command: 'true' })).toMatchObject({ exitCode: 0, reused: true });
    } finally {
      await execOnly.close();
    }
  });

  it('never shares a container between two sessions, even of one user on one workspace', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const [a, b] = [newSession(), newSession()];
    const inA = await run(a, workspaceId, 'hostname; echo secret > /tmp/mine');
    const inB = await run(b, workspaceId, 'hostname; cat /tmp/mine 2>&1 || true');
    expect(inB.stdout.split('\n')[0]).not.toBe(inA.stdout.split('\n')[0]);
    expect(inB.stdout).toContain('No such file');
  });

  it('names the files a writable run created, changed and deleted, summarising dependency folders', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    // As uploads leave them: the sandbox user may change them.
    for (const [name, text] of [['old.txt', 'old'], ['keep.txt', 'keep']] as const) {
      await writeFile(join(sandbox.root, workspaceId, name), text);
      await chmod(join(sandbox.root, workspaceId, name), 0o666);
    }
    const result = await run(
      session,
      workspaceId,
      'echo new > new.txt && echo more >> keep.txt && rm old.txt && mkdir -p node_modules/a && touch node_modules/a/1 node_modules/a/2',
    );
    expect(result.changes).toMatchObject({
      created: ['new.txt'],
      modified: ['keep.txt'],
      deleted: ['old.txt'],
      folders: [{ path: 'node_modules', files: 2 }],
      truncated: false,
    });
    expect(await readFile(join(sandbox.root, workspaceId, 'new.txt'), 'utf8')).toBe('new\n');
  });

  it('keeps .weft/ read-only inside a writable container, and the workspace read-only in a read-only one', async () => {
    const workspaceId = await sandbox.newWorkspace();
    const writable = await run(newSession(), workspaceId, 'touch .weft/x; rm -rf .weft; mv .weft moved; ls -d .weft && touch ok');
    expect(writable.stderr).toMatch(/\.weft\/x.*Read-only file system/);
    expect(writable.stderr).toMatch(/Device or resource busy|Read-only/);
    expect(writable.stdout).toContain('.weft');
    const readOnly = await run(newSession(), workspaceId, 'touch nope', { writable: false });
    expect(readOnly.exitCode).not.toBe(0);
    expect(readOnly.stderr).toContain('Read-only file system');
  });

  it('refuses a workspace whose .weft is a link, since a bind mount would follow it onto the host', async () => {
    const workspaceId = await sandbox.newWorkspace();
    await symlink('/etc', join(sandbox.root, workspaceId, '.weft'));
    await expect(run(newSession(), workspaceId, 'true')).rejects.toMatchObject({ code: ErrorCode.Forbidden });
  });

  it('kills the whole process group on timeout, and what a finished command left running', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    const timedOut = await run(session, workspaceId, 'sleep 300 & sleep 301 & sleep 302', { timeoutMs: 1_500 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null });
    const finished = await run(session, workspaceId, '(sleep 303 &); echo done');
    expect(finished.stdout).toBe('done\n');
    // `^sleep 30`: not weft-idle's own `sleep 1`, nor the bash running this pgrep.
    const left = await run(session, workspaceId, "pgrep -fc '^sleep 30' || true");
    expect(left.stdout.trim()).toBe('0');
  });

  it('kills the whole process group on cancel', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    await run(session, workspaceId, 'true');
    const abort = new AbortController();
    const running = sandbox.service.run(
      { mode: 'command', workspaceId, command: 'sleep 310 & sleep 311; echo never', writable: true, network: 'none', session },
      { signal: abort.signal, onOutput: () => undefined },
    );
    await waitFor('the command to start', async () => (await run(session, workspaceId, "pgrep -fc '^sleep 31' || true")).stdout.trim() === '2');
    abort.abort();
    await expect(running).rejects.toMatchObject({ code: ErrorCode.SandboxCancelled });
    expect((await run(session, workspaceId, "pgrep -fc '^sleep 31' || true")).stdout.trim()).toBe('0');
  });

  it('reports a command killed for memory, and keeps the tail of capped output with the size cut', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    const oom = await run(session, workspaceId, `python3 -c "b = bytearray(${HarnessLimits.memoryMb * 4} * 1024 * 1024)"`);
    expect(oom.oomKilled).toBe(true);
    const loud = await run(session, workspaceId, 'seq 1 100000');
    expect(loud.stdoutTruncated).toBe(true);
    expect(loud.stdout.startsWith('1\n2\n')).toBe(true);
    expect(loud.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(loud.stdoutCutBytes).toBeGreaterThan(500_000);
  });

  it('runs confined like any sandbox run: uid 10001, no capabilities, no new privileges, seccomp, no network', async () => {
    const session = newSession();
    const workspaceId = await sandbox.newWorkspace();
    const probe = await run(session, workspaceId, 'id -u; grep -E "^(CapEff|CapBnd|NoNewPrivs|Seccomp)" /proc/self/status; touch /etc/x 2>&1; cat /sys/class/net/*/operstate 2>/dev/null | wc -l');
    for (const line of ['10001', 'CapBnd:\t0000000000000000', 'CapEff:\t0000000000000000', 'NoNewPrivs:\t1', 'Seccomp:\t2']) {
      expect(probe.stdout.split('\n')).toContain(line);
    }
    expect(probe.stdout).toContain('Read-only file system');
    const [container] = await containersOf(session);
    const info = await sandbox.docker.getContainer(container!.Id).inspect();
    expect(info.HostConfig).toMatchObject({ NetworkMode: 'none', CapDrop: ['ALL'], SecurityOpt: ['no-new-privileges', `seccomp=${seccompProfile()}`], ReadonlyRootfs: true, Privileged: false });
    expect(info.HostConfig.Memory).toBe(HarnessLimits.memoryMb * 1024 * 1024);
    expect(info.HostConfig.PidsLimit).toBe(HarnessLimits.pidsLimit);
  });

  it("picks the image from .weft/settings.json, else a catalogued devcontainer image, and refuses one the catalogue lacks", async () => {
    const workspaceId = await sandbox.newWorkspace();
    const root = join(sandbox.root, workspaceId);
    await mkdir(join(root, '.devcontainer'));
    await writeFile(join(root, '.devcontainer/devcontainer.json'), '{ // a comment\n "image": "weft/sandbox-runtime:latest", }');
    expect((await run(newSession(), workspaceId, 'true', { writable: false })).image).toBe('minimal');
    await mkdir(join(root, '.weft'));
    await writeFile(join(root, '.weft/settings.json'), '{ "sandboxImage": "dev" }');
    expect((await run(newSession(), workspaceId, 'true', { writable: false })).image).toBe('dev');
    await writeFile(join(root, '.weft/settings.json'), '{ "sandboxImage": "cobol" }');
    await expect(run(newSession(), workspaceId, 'true')).rejects.toMatchObject({
      code: ErrorCode.SandboxImageUnknown,
      message: expect.stringContaining('allowed: dev, minimal'),
    });
    await expect(run(newSession(), workspaceId, 'true', { image: 'cobol' })).rejects.toMatchObject({ code: ErrorCode.SandboxImageUnknown });
  });

  it('is removed when the session is released, and after it was idle', async () => {
    const released = newSession();
    const idle = newSession();
    const workspaceId = await sandbox.newWorkspace();
    await run(released, workspaceId, 'true');
    await run(idle, workspaceId, 'true');
    expect(await sandbox.release(released.sessionId)).toBe(1);
    expect(await containersOf(released)).toHaveLength(0);
    // SANDBOX_SESSION_IDLE_MS is 3 s here: the container stops itself and the worker removes it.
    await waitFor('the idle container to be removed', async () => (await containersOf(idle)).length === 0, 20_000);
    // The session goes on: its next command gets a new container.
    expect(await run(idle, workspaceId, 'true')).toMatchObject({ exitCode: 0, reused: false });
  });

  it('is removed when its worker stops', async () => {
    const other = await startSandboxHarness(nats.url, { SANDBOX_POOL_SIZE: '0' });
    const session = newSession();
    // Straight to its service: over NATS the queue group may hand the request to the first worker.
    await other.service.run({ mode: 'command', workspaceId: await other.newWorkspace(), command: 'true', writable: true, network: 'none', session });
    expect(await other.containers()).toHaveLength(1);
    await other.close();
    expect(await other.containers()).toHaveLength(0);
  });
});
