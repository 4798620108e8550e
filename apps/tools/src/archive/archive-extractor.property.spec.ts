import { lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { AppError, ErrorCode } from '@weft/contracts';
import fc from 'fast-check';
import pino from 'pino';
import type { types } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostilePath } from '../testing/hostile-paths';
import { type FixtureEntry, gnuLongName, paxHeader, tarOf } from '../testing/tar-fixtures';
import { isInside } from '../workspace/path-containment';
import { SNAPSHOTS_FOLDER, WorkspaceStore } from '../workspace/workspace-store';
import { WorkspaceService } from '../workspace/workspace.service';

const LIMITS = { maxBytes: 4096, maxEntries: 20 };
/** Names entries share, so that links, hard links and nested entries meet each other and the file outside. */
const NAMES = ['a', 'b', 'dir', 'link', 'f.txt', 'dir/a', 'link/a', '../outside/secret', '../outside', 'ws_other'];
const name = hostilePath(NAMES, 4);
const longName = fc.tuple(fc.constantFrom('dir/', 'link/', '../', ''), fc.integer({ min: 90, max: 300 })).map(([head, n]) => head + 'l'.repeat(n));
const anyName = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...NAMES) }, { weight: 3, arbitrary: name }, { weight: 1, arbitrary: longName });

const entryType = fc.constantFrom<types.EntryTypeName>(
  ...(['File', 'Directory', 'SymbolicLink', 'Link'] as const).flatMap((t) => [t, t, t]),
  'ContiguousFile',
  'OldFile',
  'CharacterDevice',
  'BlockDevice',
  'FIFO',
  'GNUDumpDir',
  'SparseFile',
);
const BODY_TYPES = new Set<types.EntryTypeName>(['File', 'ContiguousFile', 'OldFile']);
const LINK_TYPES = new Set<types.EntryTypeName>(['SymbolicLink', 'Link']);

/** A file with a body, a link with a target, anything else bare; now and then a header that lies about its size. */
const plainEntry = fc
  .tuple(
    anyName,
    entryType,
    anyName,
    fc.string({ maxLength: 40 }),
    fc.option(fc.oneof(fc.nat(2000), fc.constant(LIMITS.maxBytes + 1)), { freq: 40, nil: undefined }),
    fc.constantFrom(0o644, 0o755, 0o4755, 0o2755, 0o1777, 0o000),
  )
  .map(([path, type, target, content, lie, mode]): FixtureEntry => {
    const entry: FixtureEntry = { path, type, mode };
    if (LINK_TYPES.has(type)) entry.linkpath = target;
    if (BODY_TYPES.has(type)) Object.assign(entry, { content, size: Buffer.byteLength(content) });
    if (lie !== undefined) entry.size = lie;
    return entry;
  });

/** An entry as is, or named by a pax header or a GNU long name/link entry before it. */
const entryGroup: fc.Arbitrary<FixtureEntry[]> = fc.oneof(
  { weight: 4, arbitrary: plainEntry.map((entry) => [entry]) },
  fc.tuple(anyName, fc.option(anyName, { nil: undefined }), plainEntry).map(([path, linkpath, entry]) => [
    paxHeader(linkpath === undefined ? { path } : { path, linkpath }),
    entry,
  ]),
  fc.tuple(anyName, plainEntry).map(([path, entry]) => [gnuLongName(path), entry]),
  fc.tuple(anyName, plainEntry).map(([target, entry]): FixtureEntry[] => [
    { path: '././@LongLink', type: 'NextFileHasLongLinkpath', content: `${target}\0` },
    { ...entry, type: 'SymbolicLink' },
  ]),
);

/** What happens to the tar stream before it is compressed: nothing, cut short, a byte flipped, junk after it. */
const damage = fc.oneof(
  { weight: 20, arbitrary: fc.constant((tar: Buffer) => tar) },
  fc.nat().map((n) => (tar: Buffer) => tar.subarray(0, n % (tar.length + 1))),
  fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })).map(([at, xor]) => (tar: Buffer) => {
    const copy = Buffer.from(tar);
    copy[at % copy.length] = (copy[at % copy.length] as number) ^ xor;
    return copy;
  }),
  fc.uint8Array({ minLength: 1, maxLength: 1024 }).map((junk) => (tar: Buffer) => Buffer.concat([tar, junk])),
);

const archives = fc.oneof(
  { weight: 19, arbitrary: fc.tuple(fc.array(entryGroup, { maxLength: 6 }), damage).map(([groups, hurt]) => gzipSync(hurt(tarOf(groups.flat())))) },
  fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)),
);

describe('archive extraction, for arbitrary archives', () => {
  let base: string;
  let secret: { dev: number; ino: number };
  let runs = 0;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-archive-prop-')));
    await mkdir(join(base, 'outside'));
    await mkdir(join(base, 'runs'));
    await writeFile(join(base, 'outside', 'secret'), 'secret');
    secret = await lstat(join(base, 'outside', 'secret'));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  /** Every file, folder and link under the root, with lstat: only those three kinds, nothing set-id, no link out. */
  async function assertContained(root: string): Promise<void> {
    const pending = [root];
    while (pending.length > 0) {
      const dir = pending.pop() as string;
      for (const entry of await readdir(dir)) {
        const path = join(dir, entry);
        const stats = await lstat(path);
        if (stats.isDirectory()) pending.push(path);
        else if (stats.isSymbolicLink()) expect(await linkLandsInside(root, path), `${path} -> ${await readlink(path)}`).toBe(true);
        else {
          expect(stats.isFile(), path).toBe(true);
          expect(stats.mode & 0o7000, path).toBe(0);
          expect({ dev: stats.dev, ino: stats.ino }, path).not.toEqual({ dev: secret.dev, ino: secret.ino });
        }
      }
    }
  }

  /** Follows a link with the kernel, component by component; where it dangles, takes the rest as written. */
  async function linkLandsInside(root: string, link: string): Promise<boolean> {
    const target = await readlink(link);
    let current = target.startsWith('/') ? '/' : await realpath(dirname(link));
    const parts = target.split('/').filter((part) => part !== '' && part !== '.');
    for (const [i, part] of parts.entries()) {
      try {
        current = await realpath(`${current === '/' ? '' : current}/${part}`);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOTDIR' || code === 'ELOOP') return true; // leads nowhere, so nowhere outside
        if (code !== 'ENOENT') throw error;
        return isInside(root, posix.normalize(`${current}/${parts.slice(i).join('/')}`));
      }
    }
    return isInside(root, current);
  }

  async function assertNothingLeftBehind(workspaces: string): Promise<void> {
    expect((await readdir(workspaces).catch(() => [])).filter((n) => n !== SNAPSHOTS_FOLDER)).toEqual([]);
    expect(await readdir(join(workspaces, SNAPSHOTS_FOLDER)).catch(() => [])).toEqual([]);
    expect((await readdir(base)).sort()).toEqual(['outside', 'runs']);
    expect(await readdir(join(base, 'outside'))).toEqual(['secret']);
    expect(await readFile(join(base, 'outside', 'secret'), 'utf8')).toBe('secret');
  }

  it('unpacks every file under the root with no link out, or rejects with ARCHIVE_REJECTED and leaves nothing', { timeout: 60_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(archives, async (archive) => {
        // A folder per run, so that a run that failed (or hung) cannot fail the next ones.
        const workspaces = join(base, 'runs', String(++runs));
        const service = new WorkspaceService(new WorkspaceStore(workspaces), LIMITS, pino({ level: 'silent' }));
        const workspaceId = 'ws_property0001';
        const outcome = await service.create({ workspaceId, archiveBase64: archive.toString('base64') }).then(
          (totals) => ({ totals }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          expect(outcome.error, String(outcome.error)).toBeInstanceOf(AppError);
          expect(outcome.error).toMatchObject({ code: ErrorCode.ArchiveRejected });
          expect((outcome.error as AppError).message).not.toContain(base);
        } else {
          expect(outcome.totals.bytes).toBeLessThanOrEqual(LIMITS.maxBytes);
          expect(outcome.totals.files).toBeLessThanOrEqual(LIMITS.maxEntries);
          await assertContained(join(workspaces, workspaceId));
          await service.delete(workspaceId);
        }
        await assertNothingLeftBehind(workspaces);
      }),
      { numRuns: 250, timeout: 5000 },
    );
  });
});
