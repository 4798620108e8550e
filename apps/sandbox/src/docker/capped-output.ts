import { Writable } from 'node:stream';

/**
 * Keeps at most `maxBytes` of a stream: its first half and its last half, the middle cut, so a
 * test run's first error and its summary both survive. Consumes everything, so a chatty process
 * never blocks on a full pipe.
 */
export class CappedOutput {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  /** The most recent bytes past the head, oldest first; trimmed to the tail's share. */
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.total += chunk.length;
    const headMax = Math.ceil(this.maxBytes / 2);
    const room = headMax - this.headBytes;
    if (room > 0) {
      const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.head.push(part);
      this.headBytes += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    this.trimTail(this.maxBytes - headMax);
  }

  get truncated(): boolean {
    return this.cutBytes > 0;
  }

  /** Bytes left out between the head and the tail. */
  get cutBytes(): number {
    return this.total - this.headBytes - this.tailBytes;
  }

  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    if (!this.truncated) return head + tail;
    return `${head}\n[... ${this.cutBytes} bytes cut ...]\n${tail}`;
  }

  /** A sink to hand to a demultiplexer; `tap` sees every chunk, kept or not. */
  writable(tap?: (chunk: Buffer) => void): Writable {
    return new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        this.push(chunk);
        tap?.(chunk);
        done();
      },
    });
  }

  private trimTail(max: number): void {
    while (this.tailBytes > max && this.tail.length > 0) {
      const excess = this.tailBytes - max;
      const first = this.tail[0] as Buffer;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
      }
    }
  }
}
