import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createParser } from 'eventsource-parser';
import { LLAMA_SERVER_SAMPLING } from './sampling';
import type { RunSample } from './stats';

export interface LlamaServerOptions {
  bin: string;
  /** Where the binary came from, for the printout. */
  origin?: string;
  modelPath: string;
  /** Per slot, like the worker's per-sequence context. */
  contextSize: number;
  parallel: number;
  threads: number;
  /** Layers on the GPU (default 0: CPU). */
  gpuLayers?: number;
  /** llama-server's default is `auto` (on where the backend supports it); the worker's is off. */
  flashAttention?: boolean;
}

const READY_TIMEOUT_MS = 120_000;

/**
 * llama.cpp's own server on the same GGUF, threads and parallel slots, driven through its
 * OpenAI-compatible streaming endpoint: the reference column (llama-server-binary.ts says which binary).
 */
export class LlamaServer {
  private constructor(
    /** The binary's path and origin, for the printout. */
    readonly bin: string,
    readonly origin: string,
    private readonly child: ChildProcess,
    private readonly base: string,
    private readonly log: string[],
    private readonly cpuLine: { text?: string },
  ) {}

  /** The server's process id (its threads' CPU time is read from /proc). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  static async start(options: LlamaServerOptions): Promise<LlamaServer> {
    const port = await freePort();
    const args = [
      ['-m', options.modelPath],
      ['-c', String(options.contextSize * options.parallel)],
      ['--parallel', String(options.parallel)],
      ['--threads', String(options.threads)],
      ['--threads-batch', String(options.threads)],
      ['--host', '127.0.0.1'],
      ['--port', String(port)],
      ['-ngl', String(options.gpuLayers ?? 0)],
      ...(options.flashAttention === undefined ? [] : [['-fa', options.flashAttention ? 'on' : 'off']]),
    ].flat();
    const child = spawn(options.bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const log: string[] = [];
    const cpuLine: { text?: string } = {};
    const keep = (chunk: Buffer) => {
      const text = chunk.toString();
      cpuLine.text ??= text.split('\n').find((l) => /system[ _]info|CPU : /.test(l))?.trim();
      log.push(text);
      if (log.length > 200) log.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const server = new LlamaServer(options.bin, options.origin ?? 'given', child, `http://127.0.0.1:${port}`, log, cpuLine);
    await server.waitReady();
    return server;
  }

  /** The server's CPU features line (the kernel variant it was built for), where its log level prints it. */
  get cpuInfo(): string | undefined {
    return this.cpuLine.text;
  }

  async generate(system: string, user: string, maxTokens: number): Promise<RunSample> {
    const started = performance.now();
    let ttftMs = Number.NaN;
    let tokens = 0;
    let chunks = 0;
    let evaluated: number | undefined;
    const body = JSON.stringify({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      max_tokens: maxTokens,
      ...LLAMA_SERVER_SAMPLING,
      stream: true,
      stream_options: { include_usage: true },
    });
    const post = () => fetch(`${this.base}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    // llama-server closes idle keep-alive connections; a request sent on one the server has just
    // closed fails before anything was read ("other side closed"), and is safe to send again.
    const response = await post().catch((error: unknown) => {
      if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
      return post();
    });
    if (!response.ok || !response.body) throw new Error(`llama-server: ${response.status} ${await response.text()}`);
    const parser = createParser({
      onEvent: (event) => {
        if (event.data === '[DONE]') return;
        const data = JSON.parse(event.data) as {
          choices?: { delta?: { content?: string } }[];
          usage?: { completion_tokens?: number; prompt_tokens?: number };
          timings?: { prompt_n?: number };
        };
        if (data.choices?.[0]?.delta?.content) {
          chunks++;
          if (Number.isNaN(ttftMs)) ttftMs = performance.now() - started;
        }
        if (data.usage?.completion_tokens !== undefined) tokens = data.usage.completion_tokens;
        // timings.prompt_n: tokens evaluated now (prompt_tokens also counts a slot's cached prefix).
        evaluated = data.timings?.prompt_n ?? data.usage?.prompt_tokens ?? evaluated;
      },
    });
    try {
      for await (const piece of response.body.pipeThrough(new TextDecoderStream())) parser.feed(piece);
    } catch (error) {
      // A dropped stream is most often the server dying: say how, with its last log lines.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exit = this.child.exitCode ?? this.child.signalCode;
      throw new Error(`llama-server stream failed (${String(error)}); server ${exit === null ? 'still running' : `exited: ${exit}`}:\n${this.log.join('').slice(-2000)}`);
    }
    return { ttftMs, tokens: tokens || chunks, evaluated };
  }

  /**
   * The ms per generated token of each request llama-server finished since the last call, from
   * its log (`print_timing`: "eval time = … ms / … tokens (… ms per token"). Clears the log kept.
   */
  takeEvalTimings(): number[] {
    const text = this.log.join('');
    this.log.length = 0;
    return [...text.matchAll(/\|\s+eval time =\s+[\d.]+ ms \/\s+\d+ tokens \(\s*([\d.]+) ms per token/g)].map((m) => Number(m[1]));
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }

  private async waitReady(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`llama-server exited with ${this.child.exitCode}:\n${this.log.join('').slice(-2000)}`);
      const health = await fetch(`${this.base}/health`).catch(() => undefined);
      if (health?.ok) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await this.close();
    throw new Error(`llama-server not ready after ${READY_TIMEOUT_MS} ms:\n${this.log.join('').slice(-2000)}`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
