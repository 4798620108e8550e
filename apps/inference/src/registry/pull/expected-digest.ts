import { describeNetworkError, pullFailed } from './pull-errors';
import type { ResolvedSource } from './model-source';

/** What the file must be once downloaded, and who said so. */
export interface ExpectedFile {
  sizeBytes?: number;
  sha256?: string;
  checksum: 'hub' | 'sha256-file' | 'given' | 'none';
}

const PROBE_TIMEOUT_MS = 15_000;
const SHA256 = /\b([a-fA-F0-9]{64})\b/;

/**
 * Asks the source what it serves before downloading. The hub answers a HEAD on `resolve/` with a
 * redirect whose `X-Linked-Etag` is the LFS object's SHA-256 and `X-Linked-Size` its size; a plain
 * URL may have `<url>.sha256` beside it. A SHA-256 the admin gave wins over both (and must match
 * the hub's where both exist: a mismatch fails at verification).
 */
export async function probeSource(source: ResolvedSource, given: string | undefined): Promise<ExpectedFile> {
  let head: Response;
  try {
    head = await fetch(source.url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
  } catch (error) {
    throw pullFailed('unreachable', `Cannot reach ${source.url} (${describeNetworkError(error)}): check the address, the network, and HF_ENDPOINT for hf: sources (WEFT_HF_ENDPOINT in the stack's .env)`, { url: source.url }, error);
  }
  const redirected = head.status >= 300 && head.status < 400;
  if (!redirected && head.status >= 400) {
    throw pullFailed('http-status', `${source.url} answered HTTP ${head.status}${head.status === 404 ? ': no such file' : ''}${head.status === 401 || head.status === 403 ? ': it needs a login the worker does not have' : ''}`, { url: source.url, status: head.status });
  }
  const linkedSize = Number(head.headers.get('x-linked-size') ?? NaN);
  const length = redirected ? NaN : Number(head.headers.get('content-length') ?? NaN);
  const sizeBytes = Number.isSafeInteger(linkedSize) && linkedSize > 0 ? linkedSize : Number.isSafeInteger(length) && length > 0 ? length : undefined;
  if (given) return { sizeBytes, sha256: given, checksum: 'given' };
  const linked = head.headers.get('x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '');
  if (source.hub && linked && /^[a-f0-9]{64}$/i.test(linked)) return { sizeBytes, sha256: linked.toLowerCase(), checksum: 'hub' };
  const beside = await sha256Beside(source.url);
  if (beside) return { sizeBytes, sha256: beside, checksum: 'sha256-file' };
  return { sizeBytes, checksum: 'none' };
}

/** `<url>.sha256` (as `sha256sum` writes it, or the digest alone); none when absent. */
async function sha256Beside(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${url}.sha256`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) return undefined;
    const text = (await response.text()).slice(0, 4096);
    return SHA256.exec(text)?.[1]?.toLowerCase();
  } catch {
    // No checksum file is the common case; the download itself reports an unreachable host.
    return undefined;
  }
}
