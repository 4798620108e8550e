import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExportTooLarge, exportArchive } from './archive-exporter';

describe('exportArchive', () => {
  let root: string;

  beforeEach(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'weft-export-')));
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('leaves special files out', async () => {
    await writeFile(join(root, 'a.txt'), 'a');
    execFileSync('mkfifo', [join(root, 'pipe')]);
    const tar = gunzipSync(await exportArchive(root)).toString('latin1');
    expect(tar).toContain('a.txt');
    expect(tar).not.toContain('pipe');
  });

  it('fails with a typed error past its cap', async () => {
    await writeFile(join(root, 'noise.bin'), randomBytes(64 * 1024));
    await expect(exportArchive(root, 16 * 1024)).rejects.toBeInstanceOf(ExportTooLarge);
  });
});
