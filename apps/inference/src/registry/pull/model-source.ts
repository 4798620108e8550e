import { basename } from 'node:path';
import { pullFailed } from './pull-errors';

/** Where a pull reads from: the URL to GET and the file name it lands under. */
export interface ResolvedSource {
  /** As the admin gave it (`hf:…` or the URL). */
  source: string;
  url: string;
  file: string;
  /** `hf:` sources: the hub publishes the LFS SHA-256 and size in headers. */
  hub: boolean;
}

const HF = /^hf:([A-Za-z0-9][\w.-]*)\/([A-Za-z0-9][\w.-]*)\/(.+\.gguf)$/;

/**
 * `hf:owner/repo/path/file.gguf` resolves to `<hub>/owner/repo/resolve/main/path/file.gguf` (the
 * hub is HF_ENDPOINT, like huggingface_hub's); an http(s) URL is taken as it is.
 */
export function resolveModelSource(source: string, hubEndpoint: string): ResolvedSource {
  const hf = HF.exec(source);
  if (hf) {
    const [, owner, repo, path] = hf as unknown as [string, string, string, string];
    if (path.split('/').some((part) => part === '..' || part === '' || part === '.')) throw badSource(source);
    const url = `${hubEndpoint.replace(/\/+$/, '')}/${owner}/${repo}/resolve/main/${path.split('/').map(encodeURIComponent).join('/')}`;
    return { source, url, file: safeFileName(basename(path)), hub: true };
  }
  let parsed: URL;
  try {
    parsed = new URL(source);
  } catch {
    throw badSource(source);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw badSource(source);
  const name = decodeURIComponent(basename(parsed.pathname));
  if (!name.toLowerCase().endsWith('.gguf')) {
    throw pullFailed('source', `The URL ${source} does not name a .gguf file; give the URL of the GGUF itself`, { source });
  }
  return { source, url: parsed.toString(), file: safeFileName(name), hub: false };
}

/** The registry id a file gets by default: its name without `.gguf`, in the id alphabet. */
export function defaultModelId(file: string): string {
  return (
    file
      .replace(/\.gguf$/i, '')
      .replace(/[^A-Za-z0-9._:-]/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 128) || 'model'
  );
}

function safeFileName(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

function badSource(source: string) {
  return pullFailed('source', `Cannot pull "${source}": give hf:<owner>/<repo>/<file>.gguf or an http(s) URL of a .gguf file`, { source });
}
