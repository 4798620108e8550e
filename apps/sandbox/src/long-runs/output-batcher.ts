import { StringDecoder } from 'node:string_decoder';
import { RUN_OUTPUT_CHUNK_MAX_CHARS } from '@weft/contracts';
import type { OutputStream } from '../docker/container-runtime';

/** Output is sent at least this often while a run writes. */
export const OUTPUT_FLUSH_MS = 200;

export interface OutputBatcherOptions {
  /** Bytes of each stream that are streamed at most; the rest is only counted. */
  maxBytesPerStream: number;
  send: (stream: OutputStream, text: string) => void;
  flushMs?: number;
}

/**
 * Turns a run's raw output into bounded text chunks: batched (so a chatty run is not one message
 * per write), split at RUN_OUTPUT_CHUNK_MAX_CHARS, never cutting a UTF-8 character in two, and
 * capped per stream like the result's output.
 */
export class OutputBatcher {
  private readonly streams = {
    stdout: { decoder: new StringDecoder('utf8'), pending: '', bytes: 0 },
    stderr: { decoder: new StringDecoder('utf8'), pending: '', bytes: 0 },
  };
  private timer?: NodeJS.Timeout;

  constructor(private readonly options: OutputBatcherOptions) {}

  push(stream: OutputStream, chunk: Buffer): void {
    const state = this.streams[stream];
    const room = this.options.maxBytesPerStream - state.bytes;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    state.bytes += kept.length;
    state.pending += state.decoder.write(kept);
    if (state.pending.length >= RUN_OUTPUT_CHUNK_MAX_CHARS) this.flush(stream);
    this.timer ??= setTimeout(() => this.flushAll(), this.options.flushMs ?? OUTPUT_FLUSH_MS);
  }

  /** Sends everything held back, the end of a cut character included. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const state = this.streams[stream];
      state.pending += state.decoder.end();
    }
    this.flushAll();
  }

  private flushAll(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.flush('stdout');
    this.flush('stderr');
  }

  private flush(stream: OutputStream): void {
    const state = this.streams[stream];
    let text = state.pending;
    state.pending = '';
    while (text.length > 0) {
      let cut = Math.min(text.length, RUN_OUTPUT_CHUNK_MAX_CHARS);
      // Never split a surrogate pair between two chunks.
      if (cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
      this.options.send(stream, text.slice(0, cut));
      text = text.slice(cut);
    }
  }
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
