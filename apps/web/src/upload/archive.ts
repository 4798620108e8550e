import { unzip } from 'fflate';
import { type ParsedTarEntryWithData, packTar, unpackTar } from 'modern-tar';
import { isSkipped } from './pack-folder';

/** Archives the page takes instead of a folder; each is repacked here into the tar.gz the gateway takes. */
export type ArchiveKind = 'tar.gz' | 'tar' | 'zip';

const KINDS: Array<[RegExp, ArchiveKind]> = [
  [/\.(tar\.gz|tgz)$/i, 'tar.gz'],
  [/\.tar$/i, 'tar'],
  [/\.zip$/i, 'zip'],
];

/** The archive's kind by its name, or null for a file that is not one. */
export function archiveKind(fileName: string): ArchiveKind | null {
  return KINDS.find(([pattern]) => pattern.test(fileName))?.[1] ?? null;
}

/** "greeter-1.2.tar.gz" → "greeter-1.2": what the workspace listing calls it. */
export function archiveBaseName(fileName: string): string {
  return KINDS.reduce((name, [pattern]) => name.replace(pattern, ''), fileName) || 'upload';
}

/**
 * The tar.gz to upload for an archive file, with what a folder upload would give: one folder
 * that holds everything (`repo-main/` of a downloaded repository) is taken off, so the project is
 * the workspace's root, and .git and node_modules are left out. A tar keeps its modes and links;
 * a zip's files arrive without their executable bit.
 */
export async function archiveForUpload(file: File): Promise<Blob> {
  const kind = archiveKind(file.name);
  if (!kind) throw new Error(`${file.name} is not an archive this page can upload: choose a .tar.gz, .tgz, .tar or .zip.`);
  const entries = kind === 'zip' ? await zipEntries(file) : await tarEntries(file, kind === 'tar.gz');
  const kept = withoutSharedFolder(entries).filter((entry) => entry.header.name !== '' && !isSkipped(entry.header.name));
  if (!kept.some((entry) => entry.header.type === 'file' || entry.header.type === undefined)) throw new Error(`${file.name} holds no files to upload.`);
  const tar = await packTar(kept.map(({ header, data }) => ({ header, body: data })));
  return new Response(new Blob([tar]).stream().pipeThrough(new CompressionStream('gzip'))).blob();
}

async function tarEntries(file: File, gzipped: boolean): Promise<ParsedTarEntryWithData[]> {
  const stream = gzipped ? file.stream().pipeThrough(new DecompressionStream('gzip')) : file.stream();
  try {
    return await unpackTar(new Uint8Array(await new Response(stream).arrayBuffer()));
  } catch (error) {
    throw new Error(`${file.name} is not a readable ${gzipped ? 'tar.gz' : 'tar'}: ${(error as Error).message}`);
  }
}

async function zipEntries(file: File): Promise<ParsedTarEntryWithData[]> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  const files = await new Promise<Record<string, Uint8Array>>((resolve, reject) =>
    unzip(bytes, (error, data) => (error ? reject(new Error(`${file.name} is not a readable zip: ${error.message}`)) : resolve(data))),
  );
  return Object.entries(files)
    .filter(([path]) => !path.endsWith('/'))
    .map(([name, data]) => ({ header: { name, size: data.length, type: 'file' as const, mode: 0o644 }, data: data as Uint8Array<ArrayBuffer> }));
}

/** Takes off the one top folder every entry sits in, if there is one. */
function withoutSharedFolder(entries: ParsedTarEntryWithData[]): ParsedTarEntryWithData[] {
  const tops = new Set(entries.map((entry) => entry.header.name.replace(/^\.\//, '').split('/')[0]));
  const [top] = tops;
  const nested = entries.some((entry) => entry.header.name.replace(/^\.\//, '').includes('/'));
  if (tops.size !== 1 || !top || !nested) return entries;
  const prefix = new RegExp(`^(\\./)?${top.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?`);
  return entries.map((entry) => ({ ...entry, header: { ...entry.header, name: entry.header.name.replace(prefix, '') } }));
}
