import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import * as tarStream from 'tar-stream';
import { UsageError } from './errors';

/**
 * The host's configuration inside a backup archive: `.env` (the admin token, NATS passwords) and
 * the `config/` folder (models, scripts) live beside `docker-compose.yml`, out of the gateway's
 * sight, so the CLI adds them to the archive it downloaded and takes them out again. The gateway
 * ignores these entries, and the CLI never uploads them.
 */
export const HOST_CONFIG_PREFIX = 'host-config/';

/** The files of a Weft checkout's configuration, relative to it: `.env` and everything under `config/`. */
export async function configFiles(checkout: string): Promise<string[]> {
  const files: string[] = [];
  if (existsSync(join(checkout, '.env'))) files.push('.env');
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(checkout, dir), { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) files.push(path.split(sep).join('/'));
    }
  };
  await walk('config');
  return files.sort();
}

/** Whether `dir` is a Weft checkout (where `docker compose up` runs): its compose file and `.env`. */
export function isCheckout(dir: string): boolean {
  return existsSync(join(dir, 'docker-compose.yml')) && existsSync(join(dir, '.env'));
}

/**
 * Copies the archive at `from` to `to`, with `files` of `checkout` appended under
 * HOST_CONFIG_PREFIX. Streams entry by entry: a backup holds every workspace.
 */
export async function addHostConfig(from: string, to: string, checkout: string, files: readonly string[]): Promise<void> {
  const pack = tarStream.pack();
  const copied = copyEntries(from, pack, () => true).then(async () => {
    for (const file of files) {
      const info = await lstat(join(checkout, file));
      await addEntry(pack, { name: `${HOST_CONFIG_PREFIX}${file}`, mode: info.mode & 0o777, mtime: info.mtime }, await readFile(join(checkout, file)));
    }
    pack.finalize();
  });
  await Promise.all([copied.catch((error: unknown) => pack.destroy(error as Error)), pipeline(pack, createGzip(), createWriteStream(to, { mode: 0o600 }))]);
  await copied;
}

/** Copies the archive at `from` to `to` without its host configuration: what the gateway is sent on restore. */
export async function withoutHostConfig(from: string, to: string): Promise<void> {
  const pack = tarStream.pack();
  const copied = copyEntries(from, pack, (name) => !name.startsWith(HOST_CONFIG_PREFIX)).then(() => pack.finalize());
  await Promise.all([copied.catch((error: unknown) => pack.destroy(error as Error)), pipeline(pack, createGzip(), createWriteStream(to, { mode: 0o600 }))]);
  await copied;
}

/** The host configuration an archive carries: path (relative to the checkout) → mode and bytes. */
export async function readHostConfig(archive: string): Promise<Map<string, { mode: number; data: Buffer }>> {
  const found = new Map<string, { mode: number; data: Buffer }>();
  for await (const entry of entries(archive)) {
    const { name, mode = 0o600, type } = entry.header;
    if (type === 'file' && name.startsWith(HOST_CONFIG_PREFIX)) {
      const path = name.slice(HOST_CONFIG_PREFIX.length);
      // Written only inside the checkout: no absolute paths, no `..`.
      if (path.startsWith('/') || path.split('/').includes('..') || !(path === '.env' || path.startsWith('config/'))) {
        throw new UsageError(`the backup's host configuration holds an unexpected path: ${name}`);
      }
      // streamx's Readable iterates its chunks, though its types do not say so.
      found.set(path, { mode, data: await collect(entry as unknown as AsyncIterable<Uint8Array>) });
    } else {
      entry.resume();
    }
  }
  return found;
}

/**
 * Writes an archive's host configuration into `checkout`. A file that exists and differs is
 * replaced only with `force`, and then kept beside as `<name>.before-restore`. Returns what changed.
 */
export async function restoreHostConfig(archive: string, checkout: string, force: boolean): Promise<{ written: string[]; unchanged: string[] }> {
  const config = await readHostConfig(archive);
  if (config.size === 0) throw new UsageError('this backup holds no host configuration (it was taken with --no-config, or away from the Weft checkout)');
  const differing: string[] = [];
  for (const [path, { data }] of config) {
    const current = await readFile(join(checkout, path)).catch(() => undefined);
    if (current && !current.equals(data)) differing.push(path);
  }
  if (differing.length > 0 && !force) {
    throw new UsageError(`these files exist and differ from the backup's: ${differing.join(', ')}; rerun with --force to replace them (each is kept as <name>.before-restore)`);
  }
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const [path, { mode, data }] of config) {
    const target = join(checkout, path);
    const current = await readFile(target).catch(() => undefined);
    if (current?.equals(data)) {
      unchanged.push(path);
      continue;
    }
    await mkdir(dirname(target), { recursive: true });
    // .env holds the admin token and the services' passwords: the owner's alone, whatever the archive says.
    const fileMode = path === '.env' ? 0o600 : mode & 0o755;
    if (current) {
      await copyFile(target, `${target}.before-restore`);
      await chmod(`${target}.before-restore`, fileMode);
    }
    await writeFile(target, data, { mode: fileMode });
    await chmod(target, fileMode); // a file that existed keeps its mode through writeFile
    written.push(relative(checkout, target).split(sep).join('/'));
  }
  return { written, unchanged };
}

/** The archive's entries, in order; a broken file fails the iteration with its error. */
function entries(archive: string): tarStream.Extract {
  const extract = tarStream.extract();
  pipeline(createReadStream(archive), createGunzip(), extract).catch(() => undefined);
  return extract;
}

async function copyEntries(from: string, pack: tarStream.Pack, keep: (name: string) => boolean): Promise<void> {
  for await (const entry of entries(from)) {
    if (!keep(entry.header.name)) {
      entry.resume();
      continue;
    }
    await pipeline(entry, pack.entry(entry.header));
  }
}

function addEntry(pack: tarStream.Pack, header: Partial<tarStream.Header> & { name: string }, data: Buffer): Promise<void> {
  return new Promise((resolve, reject) => pack.entry(header, data, (error) => (error ? reject(error) : resolve())));
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
