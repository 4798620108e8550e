import { gunzipSync } from 'node:zlib';
import { unpackTar } from 'modern-tar';
import { describe, expect, it } from 'vitest';
import { folderFromInput, packFolder } from './pack-folder';

/** What `<input webkitdirectory>` hands the page: files whose relative path starts with the folder. */
function picked(files: Record<string, string>): FileList {
  return Object.entries(files).map(([path, text]) => {
    const file = new File([text], path.split('/').pop()!);
    Object.defineProperty(file, 'webkitRelativePath', { value: path });
    return file;
  }) as unknown as FileList;
}

describe('packing a folder in the page', () => {
  it('takes the folder name, drops .git and node_modules, and keeps paths below the folder', () => {
    const folder = folderFromInput(picked({ 'app/src/a.ts': 'a', 'app/.git/HEAD': 'ref', 'app/node_modules/x/i.js': 'x', 'app/README.md': '#' }));
    expect(folder.name).toBe('app');
    expect(folder.files.map((f) => f.path).sort()).toEqual(['README.md', 'src/a.ts']);
    expect(folder.skipped).toBe(2);
  });

  it('makes a tar.gz whose entries are the files with their contents, long paths included', async () => {
    const long = `app/${'deep/'.repeat(40)}file.txt`;
    const folder = folderFromInput(picked({ 'app/src/a.ts': 'export const a = 1;\n', [long]: 'far down\n' }));
    const archive = await packFolder(folder);
    const entries = await unpackTar(gunzipSync(Buffer.from(await archive.arrayBuffer())));
    const byName = Object.fromEntries(entries.map((e) => [e.header.name, new TextDecoder().decode(e.data)]));
    expect(byName).toEqual({ 'src/a.ts': 'export const a = 1;\n', [long.slice('app/'.length)]: 'far down\n' });
  });
});
