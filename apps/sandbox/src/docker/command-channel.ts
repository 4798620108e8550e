import { randomBytes } from 'node:crypto';
import type { Duplex, Writable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { CappedOutput } from './capped-output';
import { ContainerNotRunningError, type OutputListener, type RunOptions, type RunOutcome } from './run-types';
import { LineSplitter, SERVE_PROTOCOL_VERSION, type ServeFrame, type ServeRequest, encodeRequest, parseFrame } from './session-protocol';

/** How long a killed command may take to report its end before the container is given up on. */
const KILL_GRACE_MS = 2_000;

/** What a channel needs from its engine: the attach stream split into stdout and stderr. */
export type Demultiplex = (stream: Duplex, stdout: Writable, stderr: Writable) => void;

interface PendingRun {
  stdout: CappedOutput;
  stderr: CappedOutput;
  onOutput?: OutputListener;
  started: boolean;
  onStarted?: () => void;
  exited: (frame: Extract<ServeFrame, { t: 'exit' }> | 'lost') => void;
}

/** A long-lived process with a pipe to its stdin (a stdio MCP server), in a session container. */
export interface InteractiveRun {
  write(data: Buffer): void;
  end(): void;
  kill(): void;
  /** Its exit code; null when the container went away under it. */
  readonly exited: Promise<number | null>;
  /** The last of what it wrote to stderr, for a message when it fails. */
  stderrTail(): string;
}

/** Enough of a stdio server's stderr to say why it failed. */
const INTERACTIVE_STDERR_BYTES = 8 * 1024;

/** What a command server says of itself when pinged. */
export interface ServerHello {
  version: number;
  /** A warm pool's server: PID 1, sealed, one command, every process dead before it reports the end. */
  oneShot: boolean;
}

/**
 * Commands for one container through its command server (`weft-serve`), over the container's
 * attached stdin and stdout: no `docker exec` per command. A session container's, or a pooled
 * snippet container's (one command). The worker keeps the deadline and the output cap; a server
 * that stops answering gets its container removed.
 */
export class CommandChannel {
  private readonly runs = new Map<string, PendingRun>();
  private readonly pongs = new Map<string, (hello: ServerHello) => void>();
  private closed = false;
  private onClosed!: () => void;
  /** Resolves when the attach stream ends: the server (and so, for a pooled one, its container) is gone. */
  readonly whenClosed = new Promise<void>((resolve) => (this.onClosed = resolve));

  constructor(
    private readonly stream: Duplex,
    demultiplex: Demultiplex,
    /** Called when a killed command never reports back: remove the container. */
    private readonly giveUp: () => Promise<void>,
    private readonly logger: Logger,
    /** The container, in the note a run gets when it stops under it. */
    private readonly what = 'session container',
  ) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const lines = new LineSplitter((line) => this.dispatch(line));
    stdout.on('data', (chunk: Buffer) => lines.push(chunk));
    stderr.on('data', (chunk: Buffer) => this.logger.debug({ serverLog: chunk.toString('utf8').slice(0, 2_000) }, 'weft-serve wrote to stderr'));
    demultiplex(stream, stdout, stderr);
    const end = () => this.close();
    // The last frames may still be in `stdout` when the attach stream ends (a one-shot server
    // exits right after its exit frame): close once they are read.
    const endOutput = () => !stdout.writableEnded && stdout.end();
    stream.once('end', endOutput);
    stream.once('close', endOutput);
    stdout.once('end', end);
    stream.on('error', (error) => {
      this.logger.debug({ err: error }, 'session container attach stream failed');
      end();
    });
  }

  get open(): boolean {
    return !this.closed;
  }

  /** True when a command server of this protocol answers within `timeoutMs`. */
  async ping(timeoutMs: number): Promise<boolean> {
    return (await this.hello(timeoutMs))?.version === SERVE_PROTOCOL_VERSION;
  }

  /** What the server says of itself, or undefined when none answers within `timeoutMs`. */
  async hello(timeoutMs: number): Promise<ServerHello | undefined> {
    if (this.closed) return undefined;
    const id = randomBytes(6).toString('hex');
    const hello = await new Promise<ServerHello | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      this.pongs.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      this.send({ t: 'ping', id });
    });
    this.pongs.delete(id);
    return hello;
  }

  async run(argv: string[], cwd: string, options: RunOptions): Promise<RunOutcome> {
    if (this.closed) throw new ContainerNotRunningError('session container');
    const id = randomBytes(8).toString('hex');
    const startedAt = performance.now();
    let resolveExit!: PendingRun['exited'];
    const exit = new Promise<Parameters<PendingRun['exited']>[0]>((resolve) => (resolveExit = resolve));
    const run: PendingRun = {
      stdout: new CappedOutput(options.outputMaxBytes),
      stderr: new CappedOutput(options.outputMaxBytes),
      onOutput: options.onOutput,
      started: false,
      exited: resolveExit,
    };
    this.runs.set(id, run);
    try {
      if (options.stdin === undefined) this.send({ t: 'run', id, argv, cwd });
      else {
        this.send({ t: 'run', id, argv, cwd, stdin: true });
        if (options.stdin.length > 0) this.send({ t: 'in', id, d: Buffer.from(options.stdin, 'utf8').toString('base64') });
        this.send({ t: 'eof', id });
      }
      const ending = await raceEnd(exit, options.timeoutMs, options.signal);
      let frame = ending.frame;
      if (!frame) {
        this.send({ t: 'kill', id });
        frame = await Promise.race([exit, delay(KILL_GRACE_MS).then(() => undefined)]);
        if (frame === undefined) {
          this.logger.warn({ runId: id }, `a killed command did not report its end; removing its ${this.what}`);
          await this.giveUp();
        }
        if (ending.reason === 'cancelled') throw new AppError(ErrorCode.SandboxCancelled, 'The run was cancelled and its processes killed');
      }
      // The container went away before the server took the command: nothing ran.
      if (frame === 'lost' && !run.started) throw new ContainerNotRunningError('session container');
      const exited = typeof frame === 'object' ? frame : undefined;
      if (frame === 'lost') run.stderr.push(Buffer.from(`\nweft: the ${this.what} stopped during the run\n`));
      const timedOut = ending.reason === 'timeout';
      return {
        exitCode: timedOut ? null : (exited?.code ?? null),
        stdout: run.stdout.text(),
        stderr: run.stderr.text() + (exited?.oom ? `\n${OOM_NOTE}\n` : ''),
        stdoutTruncated: run.stdout.truncated,
        stderrTruncated: run.stderr.truncated,
        stdoutCutBytes: run.stdout.cutBytes,
        stderrCutBytes: run.stderr.cutBytes,
        timedOut,
        oomKilled: exited?.oom ?? false,
        durationMs: Math.round(performance.now() - startedAt),
      };
    } finally {
      this.runs.delete(id);
    }
  }

  /**
   * Starts a process whose stdin stays open for `write`; its stdout goes to `onStdout`. Resolves
   * once it runs; rejects when it cannot start (ContainerNotRunningError when nothing ran).
   */
  async spawn(argv: string[], cwd: string, env: Record<string, string>, onStdout: (chunk: Buffer) => void): Promise<InteractiveRun> {
    if (this.closed) throw new ContainerNotRunningError('session container');
    const id = randomBytes(8).toString('hex');
    let resolveExit!: PendingRun['exited'];
    const exit = new Promise<Parameters<PendingRun['exited']>[0]>((resolve) => (resolveExit = resolve));
    let onStarted!: () => void;
    const started = new Promise<void>((resolve) => (onStarted = resolve));
    const run: PendingRun = {
      stdout: new CappedOutput(0),
      stderr: new CappedOutput(INTERACTIVE_STDERR_BYTES),
      onOutput: (stream, chunk) => stream === 'stdout' && onStdout(chunk),
      started: false,
      onStarted,
      exited: resolveExit,
    };
    this.runs.set(id, run);
    const exited = exit.then((frame) => {
      this.runs.delete(id);
      return typeof frame === 'object' ? frame.code : null;
    });
    this.send({ t: 'run', id, argv, cwd, env, stdin: true });
    const first = await Promise.race([started.then(() => 'started' as const), exit]);
    if (first === 'lost') throw new ContainerNotRunningError('session container');
    if (first !== 'started') throw new Error(`${argv[0]} exited at once (${first.code}): ${run.stderr.text().trim() || 'no message'}`);
    return {
      write: (data) => this.send({ t: 'in', id, d: data.toString('base64') }),
      end: () => this.send({ t: 'eof', id }),
      kill: () => this.send({ t: 'kill', id }),
      exited,
      stderrTail: () => run.stderr.text(),
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const run of this.runs.values()) run.exited('lost');
    this.stream.destroy();
    this.onClosed();
  }

  private send(request: ServeRequest): void {
    if (!this.closed) this.stream.write(encodeRequest(request));
  }

  private dispatch(line: string): void {
    const frame = parseFrame(line);
    if (!frame) return;
    if (frame.t === 'pong') {
      this.pongs.get(frame.id)?.({ version: frame.v, oneShot: frame.oneShot === true });
      return;
    }
    const run = this.runs.get(frame.id);
    if (!run) return; // another worker's run in the same container, or a finished one
    if (frame.t === 'started') {
      run.started = true;
      run.onStarted?.();
    }
    else if (frame.t === 'exit') run.exited(frame);
    else {
      const chunk = Buffer.from(frame.d, 'base64');
      const stream = frame.s === 'o' ? 'stdout' : 'stderr';
      run[stream].push(chunk);
      run.onOutput?.(stream, chunk);
    }
  }
}

/** What the result says when the container's memory limit killed a process of the run (as weft-exec says it). */
const OOM_NOTE = 'weft-exec: a process was killed for memory (the container\'s limit)';

type Ending<T> = { reason: 'exited'; frame: T } | { reason: 'timeout' | 'cancelled'; frame?: undefined };

async function raceEnd<T>(exit: Promise<T>, timeoutMs: number, signal?: AbortSignal): Promise<Ending<T>> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      exit.then((frame) => ({ reason: 'exited' as const, frame })),
      new Promise<Ending<T>>((resolve) => (timer = setTimeout(() => resolve({ reason: 'timeout' }), timeoutMs))),
      new Promise<Ending<T>>((resolve) => {
        onAbort = () => resolve({ reason: 'cancelled' });
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
