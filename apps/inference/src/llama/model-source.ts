import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { NodeLlamaCpp } from './llama-runtime';

/** A URL source must answer a HEAD request within this long, or the network is taken as down. */
const REACHABILITY_TIMEOUT_MS = 15_000;
/** A download that reports no progress for this long is given up (node-llama-cpp retries forever). */
const DOWNLOAD_STALL_MS = 120_000;
const PROGRESS_LOG_EVERY_MS = 10_000;

/**
 * Resolves an `hf:` URI or an http(s) URL to a GGUF in `directory`, downloading it on first use
 * with progress in the log. node-llama-cpp's downloader resumes a partial file on the next try.
 * An unreachable network is a typed INFERENCE.MODEL_DOWNLOAD_FAILED, never a hang.
 */
export async function resolveRemoteModel(
  lib: NodeLlamaCpp,
  modelId: string,
  uri: string,
  directory: string,
  log: Logger,
): Promise<string> {
  if (/^https?:\/\//.test(uri)) await assertReachable(modelId, uri);
  let lastProgressAt = Date.now();
  let lastLogAt = 0;
  let stallTimer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    const check = () => {
      if (Date.now() - lastProgressAt > DOWNLOAD_STALL_MS) {
        reject(downloadFailed(modelId, uri, `no progress for ${DOWNLOAD_STALL_MS / 1000} s`));
        return;
      }
      stallTimer = setTimeout(check, 1_000);
    };
    stallTimer = setTimeout(check, 1_000);
  });
  try {
    const resolving = lib.resolveModelFile(uri, {
      directory,
      cli: false,
      download: 'auto',
      onProgress: ({ totalSize, downloadedSize }) => {
        lastProgressAt = Date.now();
        if (lastProgressAt - lastLogAt < PROGRESS_LOG_EVERY_MS && downloadedSize < totalSize) return;
        lastLogAt = lastProgressAt;
        const percent = totalSize > 0 ? Math.round((downloadedSize / totalSize) * 100) : undefined;
        log.info({ model: modelId, downloadedSize, totalSize, percent }, 'downloading model');
      },
    });
    const path = await Promise.race([resolving, stalled]);
    log.info({ model: modelId, path }, 'model file ready');
    return path;
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw downloadFailed(modelId, uri, describe(error), error);
  } finally {
    clearTimeout(stallTimer);
  }
}

async function assertReachable(modelId: string, url: string): Promise<void> {
  let status: number;
  try {
    const response = await fetch(url, { method: 'HEAD', redirect: 'follow', signal: AbortSignal.timeout(REACHABILITY_TIMEOUT_MS) });
    status = response.status;
  } catch (error) {
    throw downloadFailed(modelId, url, `the network or host is unreachable (${describe(error)})`, error);
  }
  if (status >= 400) throw downloadFailed(modelId, url, `the server answered HTTP ${status}`);
}

function downloadFailed(modelId: string, uri: string, reason: string, cause?: unknown): AppError {
  return new AppError(
    ErrorCode.ModelDownloadFailed,
    `Model "${modelId}" could not be downloaded from ${uri}: ${reason}. Place the GGUF in the models volume and point "path" at it, or restore network access.`,
    { model: modelId, source: uri },
    true,
    { cause },
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ? `${error.message}: ${cause.code}` : error.message;
}
