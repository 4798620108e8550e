import { packTar } from 'modern-tar';

/** A file picked from a folder, with its path inside that folder ("src/app.ts"). */
export interface PickedFile {
  path: string;
  file: File;
}

export interface PickedFolder {
  name: string;
  files: PickedFile[];
  skipped: number;
}

/** Folders the agent does not need and an upload should not carry (the CLI leaves them out too). */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules']);

export const isSkipped = (path: string) => path.split('/').some((part) => SKIPPED_FOLDERS.has(part));

/** From `<input webkitdirectory>`: every file's `webkitRelativePath` starts with the folder's name. */
export function folderFromInput(list: FileList): PickedFolder {
  const all = Array.from(list).map((file) => ({ file, parts: file.webkitRelativePath.split('/') }));
  const name = all[0]?.parts[0] ?? 'upload';
  const files = all.map(({ file, parts }) => ({ path: parts.slice(1).join('/') || file.name, file }));
  return keep(name, files);
}

/** From a drop: the dropped folder (or loose files) read through the File System entries API. */
export async function folderFromDrop(items: DataTransferItemList): Promise<PickedFolder> {
  const entries = Array.from(items)
    .map((item) => item.webkitGetAsEntry())
    .filter((entry): entry is FileSystemEntry => entry !== null);
  const only = entries.length === 1 ? entries[0] : undefined;
  if (only?.isDirectory) return keep(only.name, await readDirectory(only as FileSystemDirectoryEntry, ''));
  const files = await Promise.all(entries.filter((e) => e.isFile).map(async (e) => ({ path: e.name, file: await fileOf(e as FileSystemFileEntry) })));
  return keep('upload', files);
}

/** The tar.gz that `POST /v1/workspaces` takes, packed in the page (CompressionStream gzips). */
export async function packFolder(folder: PickedFolder): Promise<Blob> {
  const tar = await packTar(
    folder.files.map(({ path, file }) => ({
      header: { name: path, size: file.size, type: 'file' as const, mode: 0o644, mtime: new Date(file.lastModified || Date.now()) },
      body: file,
    })),
  );
  const gzipped = new Blob([tar]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(gzipped).blob();
}

function keep(name: string, files: PickedFile[]): PickedFolder {
  const kept = files.filter((f) => !isSkipped(f.path));
  return { name, files: kept, skipped: files.length - kept.length };
}

async function readDirectory(dir: FileSystemDirectoryEntry, prefix: string): Promise<PickedFile[]> {
  const out: PickedFile[] = [];
  for (const entry of await readAllEntries(dir)) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory) {
      if (!SKIPPED_FOLDERS.has(entry.name)) out.push(...(await readDirectory(entry as FileSystemDirectoryEntry, path)));
    } else if (entry.isFile) out.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
  }
  return out;
}

/** readEntries answers in pages (100 in Chromium) until it answers with none. */
async function readAllEntries(dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> {
  const reader = dir.createReader();
  const all: FileSystemEntry[] = [];
  for (;;) {
    const page = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (page.length === 0) return all;
    all.push(...page);
  }
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}
