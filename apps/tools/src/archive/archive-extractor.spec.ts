import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarGz } from '../testing/tar-fixtures';
import { ArchiveUnreadable } from './archive-unreadable';
import { extractArchive } from './archive-extractor';

describe('extractArchive', () => {
  let base: string;
  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-extract-')));
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('fails at once when its root is gone, although tar then never closes', async () => {
    const unpacking = extractArchive(tarGz([{ path: 'a.txt', content: 'x' }]), join(base, 'removed'), { maxBytes: 100, maxEntries: 5 });
    await expect(unpacking).rejects.toBeInstanceOf(ArchiveUnreadable);
  });
});
