import { gunzipSync, gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { packTar, unpackTar } from 'modern-tar';
import { describe, expect, it } from 'vitest';
import { archiveBaseName, archiveForUpload, archiveKind } from './archive';

const text = (s: string) => new TextEncoder().encode(s);

/** The entries of the tar.gz the page would upload, by name. */
async function uploaded(blob: Blob): Promise<Record<string, string>> {
  const entries = await unpackTar(gunzipSync(Buffer.from(await blob.arrayBuffer())));
  return Object.fromEntries(entries.filter((e) => e.header.type === 'file').map((e) => [e.header.name, new TextDecoder().decode(e.data)]));
}

describe('uploading an archive from the page', () => {
  it('knows the archives it takes by their names, and the name the workspace gets', () => {
    expect(['a.tar.gz', 'a.TGZ', 'a.tar', 'a.zip', 'a.rar', 'tar.gz.txt'].map(archiveKind)).toEqual(['tar.gz', 'tar.gz', 'tar', 'zip', null, null]);
    expect(archiveBaseName('greeter-1.2.tar.gz')).toBe('greeter-1.2');
    expect(archiveBaseName('.zip')).toBe('upload');
  });

  it('takes a tar.gz or a tar of a downloaded repository with the project at the root, modes kept', async () => {
    const tar = await packTar([
      { header: { name: 'repo-main/', size: 0, type: 'directory', mode: 0o755 } },
      { header: { name: 'repo-main/src/a.ts', size: 2, type: 'file', mode: 0o644 }, body: text('a\n') },
      { header: { name: 'repo-main/run.sh', size: 3, type: 'file', mode: 0o755 }, body: text('ls\n') },
      { header: { name: 'repo-main/.git/HEAD', size: 3, type: 'file' }, body: text('ref') },
    ]);
    for (const file of [new File([gzipSync(tar)], 'repo-main.tgz'), new File([tar], 'repo-main.tar')]) {
      const blob = await archiveForUpload(file);
      expect(await uploaded(blob)).toEqual({ 'src/a.ts': 'a\n', 'run.sh': 'ls\n' });
      const entries = await unpackTar(gunzipSync(Buffer.from(await blob.arrayBuffer())));
      expect(entries.find((e) => e.header.name === 'run.sh')?.header.mode).toBe(0o755);
    }
  });

  it('repacks a zip as a tar.gz, leaving .git and node_modules out and keeping a root of several entries as it is', async () => {
    const zip = zipSync({ 'src/a.ts': text('export {};\n'), 'README.md': text('# app\n'), '.git/HEAD': text('ref'), 'node_modules/x/i.js': text('x') });
    expect(await uploaded(await archiveForUpload(new File([zip], 'app.zip')))).toEqual({ 'src/a.ts': 'export {};\n', 'README.md': '# app\n' });
  });

  it('refuses a file that is not an archive, or a broken zip, naming the file', async () => {
    await expect(archiveForUpload(new File(['x'], 'notes.txt'))).rejects.toThrow('notes.txt is not an archive this page can upload');
    await expect(archiveForUpload(new File(['not a zip'], 'broken.zip'))).rejects.toThrow('broken.zip is not a readable zip');
    await expect(archiveForUpload(new File(['not gzip'], 'broken.tar.gz'))).rejects.toThrow('broken.tar.gz is not a readable tar.gz');
    await expect(archiveForUpload(new File([zipSync({ 'empty/': new Uint8Array() })], 'empty.zip'))).rejects.toThrow('empty.zip holds no files to upload');
  });
});
