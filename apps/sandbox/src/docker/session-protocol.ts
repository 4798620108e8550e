/**
 * The contract between the sandbox worker and `weft-serve`, a session container's command server
 * (docker/sandbox-runtime/weft-serve): JSON lines on the container's stdin and stdout.
 * Everything that comes back is data from inside the sandbox: it is parsed defensively and
 * never trusted to enforce a limit (the worker keeps the deadline and the output cap).
 */
export const SERVE_PROTOCOL_VERSION = 1;

export type ServeRequest =
  | { t: 'ping'; id: string }
  | { t: 'run'; id: string; argv: string[]; cwd: string; env?: Record<string, string>; stdin?: boolean }
  | { t: 'in'; id: string; d: string }
  | { t: 'eof'; id: string }
  | { t: 'kill'; id: string };

export type ServeFrame =
  | { t: 'pong'; id: string; v: number; oneShot?: boolean }
  | { t: 'started'; id: string }
  | { t: 'out'; id: string; s: 'o' | 'e'; d: string }
  | { t: 'exit'; id: string; code: number; oom: boolean };

export function encodeRequest(request: ServeRequest): string {
  return `${JSON.stringify(request)}\n`;
}

/** A frame, or undefined for a line that is not one (the sandbox can write anything there). */
export function parseFrame(line: string): ServeFrame | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const frame = value as Record<string, unknown>;
  if (typeof frame.id !== 'string') return undefined;
  switch (frame.t) {
    case 'pong':
      return typeof frame.v === 'number' ? (frame as ServeFrame) : undefined;
    case 'started':
      return frame as ServeFrame;
    case 'out':
      return (frame.s === 'o' || frame.s === 'e') && typeof frame.d === 'string' ? (frame as ServeFrame) : undefined;
    case 'exit':
      return Number.isInteger(frame.code) ? { t: 'exit', id: frame.id, code: frame.code as number, oom: frame.oom === true } : undefined;
    default:
      return undefined;
  }
}

/** Splits a byte stream into lines; a line longer than `maxLine` is dropped, not buffered. */
export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflowed = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly maxLine = 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.append(chunk.subarray(start, nl));
      if (!this.overflowed) this.onLine(Buffer.concat(this.pending).toString('utf8'));
      this.pending = [];
      this.pendingBytes = 0;
      this.overflowed = false;
      start = nl + 1;
    }
    this.append(chunk.subarray(start));
  }

  private append(part: Buffer): void {
    if (this.overflowed || part.length === 0) return;
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLine) {
      this.overflowed = true;
      this.pending = [];
      return;
    }
    this.pending.push(part);
  }
}
