import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Duplex, PassThrough, type Writable } from 'node:stream';
import { ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandChannel } from './command-channel';
import { ContainerNotRunningError, type RunOptions } from './container-runtime';
import { LineSplitter, parseFrame } from './session-protocol';

/**
 * The worker's side against the real command server (docker/sandbox-runtime/weft-serve) run by
 * this Node on the host: the protocol, process groups and kills without Docker in between. The
 * same pair runs inside real containers in session-containers.int-spec.ts.
 */
const SERVER = resolve(__dirname, '../../../../docker/sandbox-runtime/weft-serve');
const logger = pino({ level: 'silent' });
const options: RunOptions = { timeoutMs: 10_000, outputMaxBytes: 1_000 };
const servers: ChildProcess[] = [];

function startServer(): { channel: CommandChannel; server: ChildProcess; gaveUp: () => boolean } {
  const server = spawn(process.execPath, [SERVER], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, WEFT_IDLE_SECONDS: '60' } });
  servers.push(server);
  // What docker attach gives: one duplex, stdin one way, stdout and stderr the other.
  const stream = Duplex.from({ writable: server.stdin!, readable: new PassThrough() });
  let gaveUp = false;
  const demultiplex = (_: Duplex, stdout: Writable, stderr: Writable) => {
    server.stdout!.pipe(stdout);
    server.stderr!.pipe(stderr);
  };
  server.once('exit', () => stream.destroy());
  const channel = new CommandChannel(stream, demultiplex, async () => {
    gaveUp = true;
    server.kill('SIGKILL');
  }, logger);
  return { channel, server, gaveUp: () => gaveUp };
}

afterEach(() => {
  for (const server of servers.splice(0)) server.kill('SIGKILL');
});

describe('CommandChannel with weft-serve', () => {
  it('answers a ping and runs commands with their output, exit code and working directory', async () => {
    const { channel } = startServer();
    expect(await channel.ping(5_000)).toBe(true);
    const result = await channel.run(['bash', '-c', 'pwd; echo oops >&2; exit 3'], '/tmp', options);
    expect(result).toMatchObject({ exitCode: 3, stdout: '/tmp\n', stderr: 'oops\n', timedOut: false, oomKilled: false });
    const parallel = await Promise.all([1, 2, 3].map((n) => channel.run(['bash', '-c', `sleep 0.${n}; echo ${n}`], '/tmp', options)));
    expect(parallel.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n']);
  });

  it("gives a run the caller's stdin, then its end", async () => {
    const { channel } = startServer();
    const result = await channel.run(['wc', '-l'], '/tmp', { ...options, stdin: 'one\ntwo\n' });
    expect(result).toMatchObject({ exitCode: 0, stdout: '2\n' });
    const empty = await channel.run(['cat'], '/tmp', { ...options, stdin: '' });
    expect(empty).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it('kills nothing outside its runs when it is not in a session container (a host process survives)', async () => {
    // In a container the server sweeps every other process of its user once idle; on a host,
    // as here (as root in CI), that sweep would kill the machine.
    const bystander = spawn('sleep', ['30'], { stdio: 'ignore' });
    servers.push(bystander);
    const { channel } = startServer();
    await channel.run(['true'], '/tmp', options);
    await new Promise((r) => setTimeout(r, 200));
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
  });

  it('reports a program that does not exist as exit 127 with its name', async () => {
    const { channel } = startServer();
    const result = await channel.run(['no-such-program-x'], '/tmp', options);
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain('no-such-program-x');
  });

  it('kills what a command left running in its process group when it ends', async () => {
    const { channel } = startServer();
    const marker = `weft-left-${process.pid}-${Date.now()}`;
    await channel.run(['bash', '-c', `exec -a ${marker} sleep 60 & echo started`], '/tmp', options);
    const left = await channel.run(['bash', '-c', `pgrep -fc ^${marker} || true`], '/tmp', options);
    expect(left.stdout.trim()).toBe('0');
  });

  it('kills the whole process group at the deadline and on cancel', async () => {
    const { channel } = startServer();
    const marker = `weft-deadline-${process.pid}-${Date.now()}`;
    const timedOut = await channel.run(['bash', '-c', `exec -a ${marker} sleep 60`], '/tmp', { ...options, timeoutMs: 300 });
    expect(timedOut).toMatchObject({ timedOut: true, exitCode: null });
    const abort = new AbortController();
    const running = channel.run(['bash', '-c', `exec -a ${marker} sleep 60`], '/tmp', { ...options, signal: abort.signal });
    setTimeout(() => abort.abort(), 200);
    await expect(running).rejects.toMatchObject({ code: ErrorCode.SandboxCancelled });
    const left = await channel.run(['bash', '-c', `pgrep -fc ^${marker} || true`], '/tmp', options);
    expect(left.stdout.trim()).toBe('0');
  });

  it('caps output at the run\'s limit, keeping head and tail, however much the command writes', async () => {
    const { channel } = startServer();
    const result = await channel.run(['seq', '1', '200000'], '/tmp', options);
    expect(result.stdoutTruncated).toBe(true);
    expect(result.stdout.startsWith('1\n2\n')).toBe(true);
    expect(result.stdout.endsWith('199999\n200000\n')).toBe(true);
    expect(result.stdoutCutBytes).toBeGreaterThan(1_000_000);
  });

  it('says nothing ran when the server is gone before it took the command, and removes a server that never reports a kill', async () => {
    const gone = startServer();
    gone.server.kill('SIGKILL');
    await new Promise((r) => gone.server.once('exit', r));
    await expect(gone.channel.run(['true'], '/tmp', options)).rejects.toBeInstanceOf(ContainerNotRunningError);

    const stuck = startServer();
    expect(await stuck.channel.ping(5_000)).toBe(true);
    stuck.server.kill('SIGSTOP'); // alive but deaf: neither the kill nor the exit gets through
    const result = await stuck.channel.run(['sleep', '5'], '/tmp', { ...options, timeoutMs: 200 });
    expect(result.timedOut).toBe(true);
    expect(stuck.gaveUp()).toBe(true);
  });

  it('does not take a ping answered by a shell without the server (weft-idle) as a server', async () => {
    const idle = spawn('bash', [resolve(SERVER, '../weft-idle')], { stdio: ['pipe', 'pipe', 'ignore'], env: { PATH: '/usr/bin:/bin', WEFT_IDLE_SECONDS: '60' } });
    servers.push(idle);
    const stream = Duplex.from({ writable: idle.stdin!, readable: new PassThrough() });
    const channel = new CommandChannel(stream, (_, stdout) => idle.stdout!.pipe(stdout), async () => undefined, logger);
    expect(await channel.ping(3_000)).toBe(false);
  });
});

describe('session protocol', () => {
  it('drops lines that are not frames and lines over the limit', () => {
    const lines: string[] = [];
    const splitter = new LineSplitter((line) => lines.push(line), 10);
    splitter.push(Buffer.from('{"a":1}\n0123456789ABC'));
    splitter.push(Buffer.from('DEF\nok\n'));
    expect(lines).toEqual(['{"a":1}', 'ok']);
    expect(parseFrame('{"t":"exit","id":"x","code":"1"}')).toBeUndefined();
    expect(parseFrame('{"t":"out","id":"x","s":"z","d":""}')).toBeUndefined();
    expect(parseFrame('not json')).toBeUndefined();
    expect(parseFrame('{"t":"exit","id":"x","code":2,"oom":1}')).toEqual({ t: 'exit', id: 'x', code: 2, oom: false });
  });
});

describe('an interactive run (a stdio server)', () => {
  it('takes stdin as it comes, hands its stdout over as it comes, and ends when its stdin closes', async () => {
    const { channel } = startServer();
    const lines: string[] = [];
    const run = await channel.spawn(['bash', '-c', 'while read -r line; do echo "got $line $GREETING"; done; echo bye >&2; exit 4'], '/tmp', { GREETING: 'hi' }, (chunk) =>
      lines.push(chunk.toString('utf8')),
    );
    run.write(Buffer.from('one\n'));
    run.write(Buffer.from('two\n'));
    await new Promise((r) => setTimeout(r, 300));
    expect(lines.join('')).toBe('got one hi\ngot two hi\n');
    run.end();
    expect(await run.exited).toBe(4);
    expect(run.stderrTail()).toBe('bye\n');
  });

  it('is killed with its group, and says why it could not start', async () => {
    const { channel } = startServer();
    const run = await channel.spawn(['sleep', '60'], '/tmp', {}, () => undefined);
    run.kill();
    expect(await run.exited).toBe(137);
    await expect(channel.spawn(['no-such-server-x'], '/tmp', {}, () => undefined)).rejects.toThrow(/no-such-server-x exited at once \(127\)/);
  });
});
