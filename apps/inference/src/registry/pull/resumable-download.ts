import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat, statfs, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import pRetry, { AbortError } from 'p-retry';
import { describeNetworkError, pullFailed, reasonOf } from './pull-errors';
import type { ExpectedFile } from './expected-digest';

/** A download that receives nothing for this long is cut and tried again from where it stopped. */
export const DEFAULT_STALL_MS = 60_000;
/** Tries after the first, each resuming the `.part` file (HTTP Range). */
export const DEFAULT_RETRIES = 4;
const PROGRESS_EVERY_MS = 500;

export interface DownloadOptions {
  url: string;
  /** The finished file; the bytes gather in `<dest>.part` until verified. */
  dest: string;
  expected: ExpectedFile;
  onProgress?: (event: { phase: 'download'; downloadedBytes: number; totalBytes?: number } | { phase: 'verify'; hashedBytes: number; totalBytes: number }) => void;
  stallMs?: number;
  retries?: number;
  /** The first retry's wait; later ones back off from it. */
  retryDelayMs?: number;
}

export interface DownloadedFile {
  sizeBytes: number;
  sha256: string;
  /** Bytes that were already in the `.part` file. */
  resumedFrom: number;
}

export function partFileOf(dest: string): string {
  return `${dest}.part`;
}

/** The size of the `.part` file a former pull left, 0 when none. */
export async function partialBytes(dest: string): Promise<number> {
  return (await stat(partFileOf(dest)).catch(() => undefined))?.size ?? 0;
}

/**
 * Downloads `url` to `dest`: resumes a `.part` file with HTTP Range, retries broken transfers (p-retry,
 * each try resuming), checks there is room first, then verifies the size and SHA-256 before the file
 * takes its name. What fails leaves at most a `.part` file; one whose checksum is wrong is deleted,
 * since resuming it cannot mend it.
 */
export async function downloadResumable(options: DownloadOptions): Promise<DownloadedFile> {
  const part = partFileOf(options.dest);
  const { sizeBytes: total } = options.expected;
  let resumedFrom = await partialBytes(options.dest);
  if (total !== undefined && resumedFrom > total) {
    await rm(part, { force: true });
    resumedFrom = 0;
  }
  await assertRoom(dirname(options.dest), total === undefined ? 0 : total - resumedFrom);
  await pRetry(() => transferOnce(options, part), {
    retries: options.retries ?? DEFAULT_RETRIES,
    minTimeout: options.retryDelayMs ?? 1_000,
    factor: 2,
    shouldRetry: ({ error }) => reasonOf(error) === 'interrupted' || reasonOf(error) === 'unreachable',
  });
  const size = (await stat(part)).size;
  if (total !== undefined && size !== total) {
    await rm(part, { force: true });
    throw pullFailed('size', `${options.url} gave ${size} bytes where ${total} were announced; the partial file is deleted, pull again`, { url: options.url, sizeBytes: size, expectedBytes: total });
  }
  const sha256 = await hashFile(part, size, options.onProgress);
  if (options.expected.sha256 && sha256 !== options.expected.sha256) {
    await rm(part, { force: true });
    throw pullFailed(
      'checksum',
      `The file from ${options.url} has SHA-256 ${sha256}, not the expected ${options.expected.sha256} (from ${describeChecksumSource(options.expected.checksum)}): it is deleted and nothing was registered`,
      { url: options.url, sha256, expected: options.expected.sha256 },
    );
  }
  await rename(part, options.dest);
  return { sizeBytes: size, sha256, resumedFrom };
}

async function transferOnce(options: DownloadOptions, part: string): Promise<void> {
  const start = (await stat(part).catch(() => undefined))?.size ?? 0;
  const total = options.expected.sizeBytes;
  if (total !== undefined && start === total) return;
  const stall = new AbortController();
  let timer: NodeJS.Timeout = setTimeout(() => stall.abort(), options.stallMs ?? DEFAULT_STALL_MS);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(() => stall.abort(), options.stallMs ?? DEFAULT_STALL_MS);
  };
  try {
    let response: Response;
    try {
      response = await fetch(options.url, { headers: start > 0 ? { Range: `bytes=${start}-` } : {}, redirect: 'follow', signal: stall.signal });
    } catch (error) {
      throw pullFailed('unreachable', `Cannot reach ${options.url} (${stall.signal.aborted ? 'no answer' : describeNetworkError(error)})`, { url: options.url }, error);
    }
    if (response.status === 416 && start > 0) {
      // The part holds the whole file already (or more than the server has): verification decides.
      await response.body?.cancel();
      return;
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      const status = response.status;
      const error = pullFailed('http-status', `${options.url} answered HTTP ${status}`, { url: options.url, status });
      throw status >= 500 || status === 408 || status === 429 ? pullFailed('interrupted', error.message, { url: options.url, status }) : new AbortError(error);
    }
    // A server that ignores Range sends the whole file again: start the part over.
    const appending = start > 0 && response.status === 206;
    if (start > 0 && !appending) await truncate(part, 0);
    let received = appending ? start : 0;
    let reportedAt = 0;
    const length = Number(response.headers.get('content-length') ?? NaN);
    const announced = total ?? (Number.isSafeInteger(length) ? received + length : undefined);
    // Each chunk is on disk before the next is read: a connection that breaks loses nothing received.
    const out = await open(part, appending ? 'a' : 'w');
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        alive();
        await out.write(chunk);
        received += chunk.length;
        if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
          reportedAt = Date.now();
          options.onProgress?.({ phase: 'download', downloadedBytes: received, totalBytes: announced });
        }
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') throw new AbortError(diskFull(dirname(part), part, error));
      throw pullFailed('interrupted', `The download from ${options.url} broke off after ${received} bytes (${stall.signal.aborted ? `nothing received for ${(options.stallMs ?? DEFAULT_STALL_MS) / 1000} s` : describeNetworkError(error)}); pull again to resume`, { url: options.url, receivedBytes: received }, error);
    } finally {
      await out.close();
    }
    options.onProgress?.({ phase: 'download', downloadedBytes: received, totalBytes: announced });
    if (announced !== undefined && received < announced) {
      throw pullFailed('interrupted', `The download from ${options.url} ended after ${received} of ${announced} bytes; pull again to resume`, { url: options.url, receivedBytes: received });
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Refuses to start a download that cannot fit, rather than fill the volume. */
async function assertRoom(dir: string, needed: number): Promise<void> {
  const fs = await statfs(dir);
  const free = fs.bavail * fs.bsize;
  if (needed > free) throw diskFull(dir, undefined, undefined, needed, free);
}

function diskFull(dir: string, part?: string, cause?: unknown, needed?: number, free?: number) {
  const amounts = needed !== undefined && free !== undefined ? `: ${mib(needed)} needed, ${mib(free)} free` : '';
  const kept = part ? `; the part downloaded so far is kept in ${part} and the pull resumes from it` : '';
  return pullFailed('disk-full', `The models volume (${dir}) is full${amounts}. Free space or grow the volume, then pull again${kept}`, { dir, ...(needed !== undefined ? { neededBytes: needed, freeBytes: free } : {}) }, cause);
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function describeChecksumSource(source: ExpectedFile['checksum']): string {
  switch (source) {
    case 'hub':
      return "the hub's LFS metadata";
    case 'sha256-file':
      return 'the .sha256 file beside the URL';
    case 'given':
      return '--sha256';
    case 'none':
      return 'nowhere';
  }
}

async function hashFile(path: string, size: number, onProgress: DownloadOptions['onProgress']): Promise<string> {
  const hash = createHash('sha256');
  let hashed = 0;
  let reportedAt = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    hashed += chunk.length;
    if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
      reportedAt = Date.now();
      onProgress?.({ phase: 'verify', hashedBytes: hashed, totalBytes: size });
    }
  }
  onProgress?.({ phase: 'verify', hashedBytes: hashed, totalBytes: size });
  return hash.digest('hex');
}
