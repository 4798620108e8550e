import { Writable } from 'node:stream';

/**
 * Keeps the first `maxBytes` of a stream and discards the rest while still consuming it, so a
 * chatty process never blocks on a full pipe.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private dropped = false;

  constructor(private maxBytes: number) {}

  /** Sets the cap later, for a stream attached before its run's cap was known. */
  limit(maxBytes: number): void {
    this.maxBytes = maxBytes;
  }

  push(chunk: Buffer): void {
    const room = this.maxBytes - this.kept;
    if (chunk.length > room) this.dropped = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.dropped;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
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
}
