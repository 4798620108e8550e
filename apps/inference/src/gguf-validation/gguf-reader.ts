import type { FileHandle } from 'node:fs/promises';
import { ggufInvalid } from './gguf-invalid';

/** Bytes read from the file at a time; the parse yields to the event loop between reads. */
const CHUNK_BYTES = 64 * 1024;

/** What one validation may spend: bytes of header parsed, and wall-clock time. */
export interface ReadBudget {
  maxHeaderBytes: number;
  deadline: number;
  timeBudgetMs: number;
}

/**
 * Reads a GGUF's header front to back through a small window, never past the file's end nor past
 * the budget. Every read names the field it reads, so a refusal says which part of the file is wrong.
 * Values the caller does not keep are skipped without being read.
 */
export class GgufReader {
  private window = Buffer.alloc(0);
  private windowStart = 0;
  /** The file offset of the next byte to parse. */
  position = 0;

  constructor(
    private readonly handle: FileHandle,
    readonly size: number,
    readonly file: string,
    private readonly budget: ReadBudget,
  ) {}

  remaining(): number {
    return this.size - this.position;
  }

  fail(field: string, problem: string): never {
    throw ggufInvalid(this.file, field, problem);
  }

  /** Checks the clock; loops that parse many small values call it now and then. */
  checkTime(field: string): void {
    if (performance.now() > this.budget.deadline) this.fail(field, `validation took longer than its ${this.budget.timeBudgetMs} ms budget`);
  }

  async u8(field: string): Promise<number> {
    return (await this.take(1, field)).readUInt8(0);
  }

  async u32(field: string): Promise<number> {
    return (await this.take(4, field)).readUInt32LE(0);
  }

  async u64(field: string): Promise<bigint> {
    return (await this.take(8, field)).readBigUInt64LE(0);
  }

  async bytes(length: number, field: string): Promise<Buffer> {
    return Buffer.from(await this.take(length, field));
  }

  /** Whether the next `length` bytes are in the window already (then the `…Now` reads need no wait). */
  buffered(length: number): boolean {
    const at = this.position - this.windowStart;
    return at >= 0 && at + length <= this.window.length;
  }

  /** Brings the next `length` bytes into the window. */
  async ensure(length: number, field: string): Promise<void> {
    if (length > this.remaining()) this.fail(field, `the GGUF is truncated: ${length} bytes needed at offset ${this.position}, the file ends ${this.remaining()} bytes later`);
    if (!this.buffered(length)) await this.fill(this.position, length, field);
  }

  /** A u64 from the window, without a wait: for hot loops, after `buffered` or `ensure`. */
  u64Now(field: string): bigint {
    const at = this.position - this.windowStart;
    this.advance(8, field);
    return this.window.readBigUInt64LE(at);
  }

  /** Moves past `length` bytes without reading them. */
  skip(length: number, field: string): void {
    this.advance(length, field);
  }

  private async take(length: number, field: string): Promise<Buffer> {
    const start = this.position;
    this.advance(length, field);
    const offset = start - this.windowStart;
    if (offset < 0 || offset + length > this.window.length) await this.fill(start, length, field);
    const at = start - this.windowStart;
    return this.window.subarray(at, at + length);
  }

  private advance(length: number, field: string): void {
    if (length > this.remaining()) this.fail(field, `the GGUF is truncated: ${length} bytes needed at offset ${this.position}, the file ends ${this.remaining()} bytes later`);
    this.position += length;
    if (this.position > this.budget.maxHeaderBytes) this.fail(field, `the header runs past ${this.budget.maxHeaderBytes} bytes, the most Weft reads of one`);
  }

  private async fill(start: number, length: number, field: string): Promise<void> {
    this.checkTime(field);
    const want = Math.min(Math.max(length, CHUNK_BYTES), this.size - start);
    const buffer = Buffer.allocUnsafe(want);
    let read = 0;
    while (read < want) {
      const { bytesRead } = await this.handle.read(buffer, read, want - read, start + read);
      if (bytesRead === 0) this.fail(field, `the GGUF is truncated: the file ended at offset ${start + read} while being read (it shrank?)`);
      read += bytesRead;
    }
    this.window = buffer;
    this.windowStart = start;
  }
}
