import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { NotLoggedInError, UsageError } from './errors';

const credentialsSchema = z.object({ url: z.string().url(), key: z.string().min(1) });
export type Credentials = z.infer<typeof credentialsSchema>;

/** The environment variables the CLI reads; `main` passes `process.env` in once. */
export interface CliEnv {
  readonly XDG_CONFIG_HOME?: string;
  /** Where `weft` remembers which folder each workspace was uploaded from. */
  readonly XDG_STATE_HOME?: string;
  readonly HOME?: string;
  readonly WEFT_URL?: string;
  readonly WEFT_KEY?: string;
  /** The gateway's admin credential, for `weft admin`. */
  readonly WEFT_ADMIN_TOKEN?: string;
  readonly NO_COLOR?: string;
}

/** `{ url, key }` in `$XDG_CONFIG_HOME/weft/config.json`, readable by its owner alone. */
export class ConfigStore {
  readonly path: string;

  constructor(env: CliEnv) {
    const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
    this.path = join(base, 'weft', 'config.json');
  }

  async load(): Promise<Credentials | undefined> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    const parsed = credentialsSchema.safeParse(JSON.parse(text));
    if (!parsed.success) throw new UsageError(`${this.path} is not a valid weft config: run \`weft login\` again`);
    return parsed.data;
  }

  async save(credentials: Credentials): Promise<void> {
    const dir = dirname(this.path);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
    // Write then rename, so a crash never leaves half a key behind.
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, this.path);
  }
}

export function normalizeUrl(url: string): string {
  try {
    return new URL(url).toString().replace(/\/+$/, '');
  } catch {
    throw new UsageError(`not a URL: ${url}`);
  }
}

/** The file's credentials with WEFT_URL / WEFT_KEY laid over them. */
export async function resolveCredentials(store: ConfigStore, env: CliEnv): Promise<Credentials> {
  const saved = await store.load();
  const url = env.WEFT_URL || saved?.url;
  const key = env.WEFT_KEY || saved?.key;
  if (!url || !key) throw new NotLoggedInError();
  return { url: normalizeUrl(url), key };
}

/** The gateway alone, for `weft admin`: `explicit` (`--url`), WEFT_URL, then the saved login's URL. */
export async function resolveGatewayUrl(store: ConfigStore, env: CliEnv, explicit?: string): Promise<string> {
  const url = explicit || env.WEFT_URL || (await store.load())?.url;
  if (!url) throw new UsageError('no gateway URL: pass --url <gateway>, set WEFT_URL, or run `weft login` once');
  return normalizeUrl(url);
}
