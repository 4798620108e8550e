import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostilePath } from '../testing/hostile-paths';
import { fsFailure } from './fs-failure';
import { isInside, resolveInside } from './path-containment';
import { findPathProblem } from './path-syntax';
import { resolveLeaf } from './resolve-leaf';

/** Folders nested so deep that root + a path under them passes PATH_MAX while the relative path does not. */
const DEEP = Array.from({ length: 16 }, (_, i) => `${i}`.padStart(250, 'd')).join('/');
const PATH_MAX_BYTES = 4095;

/** Links in the workspace: some stay inside, some leave it directly, by a chain, or only once followed. */
const LINKS: Record<string, (base: string, root: string) => string> = {
  'out-rel': () => '../outside',
  'out-abs': (base) => join(base, 'outside'),
  sibling: () => '../ws-evil',
  'in-rel': () => 'src/lib',
  'in-abs': (_base, root) => join(root, 'src'),
  dot: () => '.',
  up: () => 'dot/..',
  'loop-a': () => 'loop-b',
  'loop-b': () => 'loop-a',
  'file-link': () => 'src/index.ts',
  dangling: () => 'missing/file',
  'dangling-out': () => 'missing/../../outside',
  'src/lib/back': () => '../..',
  'src/lib/escape': () => '../../../outside',
};
const FIXTURE_NAMES = [...Object.keys(LINKS).map((p) => p.split('/').at(-1) as string), 'src', 'lib', 'index.ts', 'ws', 'ws-evil', 'outside', 'secret', 'missing'];
/** Hostile paths, and paths under DEEP whose absolute form ends within a few bytes of PATH_MAX. */
const pathsUnder = (root: string) => {
  const fitting = PATH_MAX_BYTES - (root.length + 1 + DEEP.length + 1);
  const nearLimit = fc
    .tuple(fc.integer({ min: -40, max: 40 }), hostilePath(FIXTURE_NAMES, 2))
    .map(([offset, tail]) => `${DEEP}/${'y'.repeat(Math.max(1, fitting + offset))}${tail}`);
  return fc.oneof({ weight: 8, arbitrary: hostilePath(FIXTURE_NAMES) }, { weight: 1, arbitrary: nearLimit });
};

/** A name as the filesystem holds it: a lone surrogate becomes U+FFFD on the way to UTF-8. */
const asOnDisk = (path: string) => Buffer.from(path, 'utf8').toString('utf8');

const RESOLVE_CODES: string[] = [ErrorCode.PathOutsideWorkspace, ErrorCode.InvalidPath, ErrorCode.NotADirectory];

describe('path containment, for arbitrary paths', () => {
  let base: string;
  let root: string;

  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-contain-prop-')));
    root = join(base, 'ws');
    await mkdir(join(root, 'src', 'lib'), { recursive: true });
    await mkdir(join(root, DEEP), { recursive: true });
    await writeFile(join(root, 'src', 'index.ts'), 'export {};');
    await mkdir(join(base, 'outside'));
    await writeFile(join(base, 'outside', 'secret'), 'secret');
    await mkdir(join(base, 'ws-evil'));
    for (const [path, target] of Object.entries(LINKS)) await symlink(target(base, root), join(root, path));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  /** The typed error a tool reports: an AppError, or an fs error that the tools' safety net maps to one. */
  function typedCode(error: unknown): string | undefined {
    if (error instanceof AppError) return error.code;
    return fsFailure(error, root)?.code;
  }

  /** Where the kernel itself lands, following the same components; null where it does not get there. */
  async function kernelPath(requested: string): Promise<string | null> {
    const components = requested.split('/').filter((c) => c !== '' && c !== '.');
    return realpath([root, ...components].join('/')).catch(() => null);
  }

  it('resolves inside the root, to where the kernel goes, or throws a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(pathsUnder(root), async (requested) => {
        const outcome = await resolveInside(root, requested).then(
          (resolved) => ({ resolved }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          expect(RESOLVE_CODES, String(outcome.error)).toContain(typedCode(outcome.error));
          if (findPathProblem(requested)) expect(typedCode(outcome.error)).toBe(ErrorCode.InvalidPath);
          return;
        }
        const { real, exists } = outcome.resolved;
        expect(findPathProblem(requested)).toBeNull();
        expect(isInside(root, real), real).toBe(true);
        if (exists) expect(await realpath(real)).toBe(asOnDisk(real));
        if (exists) expect(await kernelPath(requested)).toBe(asOnDisk(real));
      }),
      { numRuns: 400 },
    );
  });

  it('resolves a leaf inside a contained parent, or throws a typed error', async () => {
    await fc.assert(
      fc.asyncProperty(pathsUnder(root), async (requested) => {
        const outcome = await resolveLeaf(root, requested).then(
          (resolved) => ({ resolved }),
          (error: unknown) => ({ error }),
        );
        if ('error' in outcome) {
          expect([...RESOLVE_CODES, ErrorCode.NotAFile], String(outcome.error)).toContain(typedCode(outcome.error));
          return;
        }
        const { real } = outcome.resolved;
        expect(real).not.toBe(root);
        expect(isInside(root, real), real).toBe(true);
        const parent = await realpath(dirname(real)).catch(() => null);
        if (parent !== null) expect(isInside(root, parent), parent).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
