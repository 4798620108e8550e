import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { InteractiveRun } from '../docker/command-channel';

/** Starts the server process and wires its stdout in; the transport owns it from then on. */
export type StartProcess = (onStdout: (chunk: Buffer) => void) => Promise<InteractiveRun>;

/**
 * The MCP stdio transport (newline-delimited JSON-RPC) over a process in a session container,
 * fed through the container's command server instead of a local child process.
 */
export class SessionStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();
  private process?: InteractiveRun;
  private ended = false;
  private closing = false;
  private code?: number | null;

  constructor(private readonly startProcess: StartProcess) {}

  async start(): Promise<void> {
    this.process = await this.startProcess((chunk) => this.receive(chunk));
    if (this.closing) void this.close(); // given up on while its container was starting: not left running
    void this.process.exited.then((code) => {
      this.code = code;
      this.ended = true;
      this.onclose?.();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.process) throw new Error('the MCP server is not running');
    this.process.write(Buffer.from(serializeMessage(message)));
  }

  close(): Promise<void> {
    this.closing = true;
    this.process?.end();
    this.process?.kill();
    return Promise.resolve();
  }

  /** The process has exited (or its container went away). */
  get closed(): boolean {
    return this.ended;
  }

  /** How it ended, for an error message: `exited with code 1`, or undefined while it runs. */
  get ending(): string | undefined {
    if (!this.ended) return undefined;
    return this.code === null || this.code === undefined ? 'its container went away' : `it exited with code ${this.code}`;
  }

  /** What the server last wrote to stderr: its own words for why it failed. */
  stderrTail(): string {
    return this.process?.stderrTail().trim() ?? '';
  }

  private receive(chunk: Buffer): void {
    this.buffer.append(chunk);
    for (;;) {
      try {
        const message = this.buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        // A line that is not JSON-RPC (a server logging to stdout): reported, the rest read on.
        this.onerror?.(error as Error);
      }
    }
  }
}
