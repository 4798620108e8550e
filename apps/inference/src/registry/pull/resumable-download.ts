import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rename, rm, stat, statfs, truncate } from 'node:fs/promises';
import { dirname } from 'node:path';
import pRetry, { AbortError } from 'p-retry';
import { describeNetworkError, keepsPartFile, pullFailed, reasonOf } from './pull-errors';
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
  /** The most bytes the file may have: a larger one is refused before or while it downloads. */
  cap?: DownloadCap;
}

/**
 * `given`: the admin's `maxSizeBytes`; `free-space`: the models volume's free space less a margin
 * (a file past it is a full volume, not a large model).
 */
export interface DownloadCap {
  bytes: number;
  origin: 'given' | 'free-space';
}

export interface DownloadedFile {
  sizeBytes: number;
  sha256: string;
  /** Bytes that were already in the `.part` file. */
  resumedFrom: number;
}

/** The cap a pull gets when the admin gives none: what the models volume has free, less this. */
export const FREE_SPACE_MARGIN_BYTES = 1024 ** 3;

/**
 * The cap of a pull into `dir`: the admin's, or the volume's free space less FREE_SPACE_MARGIN_BYTES
 * (plus what a former try left in the `.part` file, which the file may keep).
 */
export async function pullCap(dir: string, given: number | undefined, partBytes = 0): Promise<DownloadCap> {
  if (given !== undefined) return { bytes: given, origin: 'given' };
  const fs = await statfs(dir);
  return { bytes: Math.max(fs.bavail * fs.bsize - FREE_SPACE_MARGIN_BYTES, 0) + partBytes, origin: 'free-space' };
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
 * each try resuming), checks there is room first, stops at the announced length or the cap, whichever
 * is smaller, then verifies the size and SHA-256 before the file takes its name. Only a transfer
 * that broke off keeps its `.part` file (the next pull resumes it); every other failure deletes it.
 */
export async function downloadResumable(options: DownloadOptions): Promise<DownloadedFile> {
  const part = partFileOf(options.dest);
  const { sizeBytes: total } = options.expected;
  try {
    if (total !== undefined && options.cap && total > options.cap.bytes) throw overCap(options, dirname(part), total);
    let resumedFrom = await partialBytes(options.dest);
    if (resumedFrom > Math.min(total ?? Infinity, options.cap?.bytes ?? Infinity)) {
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
      throw pullFailed('size', `${options.url} gave ${size} bytes where ${total} were announced; the partial file is deleted, pull again`, { url: options.url, sizeBytes: size, expectedBytes: total });
    }
    const sha256 = await hashFile(part, size, options.onProgress);
    if (options.expected.sha256 && sha256 !== options.expected.sha256) {
      throw pullFailed(
        'checksum',
        `The file from ${options.url} has SHA-256 ${sha256}, not the expected ${options.expected.sha256} (from ${describeChecksumSource(options.expected.checksum)}): it is deleted and nothing was registered`,
        { url: options.url, sha256, expected: options.expected.sha256 },
      );
    }
    await rename(part, options.dest);
    return { sizeBytes: size, sha256, resumedFrom };
  } catch (error) {
    if (!keepsPartFile(error)) await rm(part, { force: true });
    throw error;
  }
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
        // Leaving the loop cancels the body: nothing past the limit is read, let alone written.
        if (announced !== undefined && received + chunk.length > announced) {
          throw new AbortError(pullFailed('oversize', `${options.url} sent more than the ${announced} bytes it announced: the download is stopped and its partial file deleted`, { url: options.url, announcedBytes: announced }));
        }
        if (options.cap && received + chunk.length > options.cap.bytes) throw new AbortError(overCap(options, dirname(part)));
        await out.write(chunk);
        received += chunk.length;
        if (Date.now() - reportedAt >= PROGRESS_EVERY_MS) {
          reportedAt = Date.now();
          options.onProgress?.({ phase: 'download', downloadedBytes: received, totalBytes: announced });
        }
      }
    } catch (error) {
      if (error instanceof AbortError) throw error;
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') throw new AbortError(diskFull(dirname(part), error));
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
  if (needed > free) throw diskFull(dir, undefined, needed, free);
}

function diskFull(dir: string, cause?: unknown, needed?: number, free?: number) {
  const amounts = needed !== undefined && free !== undefined ? `: ${mib(needed)} needed, ${mib(free)} free` : '';
  const deleted = cause ? '; the partial file is deleted' : '';
  return pullFailed('disk-full', `The models volume (${dir}) is full${amounts}. Free space or grow the volume, then pull again${deleted}`, { dir, ...(needed !== undefined ? { neededBytes: needed, freeBytes: free } : {}) }, cause);
}

/** A file larger than the cap: announced so (`total`), or found so while downloading. */
function overCap(options: DownloadOptions, dir: string, total?: number) {
  const cap = options.cap as DownloadCap;
  const size = total === undefined ? `more than ${cap.bytes} bytes` : `${total} bytes`;
  if (cap.origin === 'free-space') {
    return pullFailed('disk-full', `${options.url} is ${size}: more than the models volume (${dir}) can take while keeping its margin free (${cap.bytes} bytes). Free space or grow the volume, then pull again; nothing was kept`, { dir, url: options.url, capBytes: cap.bytes, ...(total === undefined ? {} : { sizeBytes: total }) });
  }
  return pullFailed('too-large', `${options.url} is ${size}, over this pull's cap of ${cap.bytes} bytes (maxSizeBytes, --max-size): the download is stopped and nothing was kept`, { url: options.url, capBytes: cap.bytes, ...(total === undefined ? {} : { sizeBytes: total }) });
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
