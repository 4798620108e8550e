import type { ManifestEntry } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { planSync } from './sync-plan';

const file = (path: string, sha = 'a', executable = false): ManifestEntry => ({ path, type: 'file', size: 1, sha256: sha.repeat(64).slice(0, 64), executable });
const dir = (path: string): ManifestEntry => ({ path, type: 'directory' });
const link = (path: string, target: string): ManifestEntry => ({ path, type: 'symlink', target });

describe('planSync', () => {
  it('sends nothing and removes nothing when the folder and the workspace agree', () => {
    const tree = [dir('src'), file('src/a.ts'), link('latest', 'src/a.ts')];
    expect(planSync(tree, tree)).toEqual({ send: [], delete: [], changed: 0, added: 0, removed: 0, unchanged: 2 });
  });

  it('sends changed and new files, and removes the ones the folder no longer has', () => {
    const remote = [dir('src'), file('src/a.ts'), file('src/b.ts'), file('README.md')];
    const local = [dir('src'), file('src/a.ts', 'b'), file('src/b.ts'), file('src/c.ts')];
    expect(planSync(local, remote)).toEqual({ send: ['src/a.ts', 'src/c.ts'], delete: ['README.md'], changed: 1, added: 1, removed: 1, unchanged: 1 });
  });

  it('counts a change of the executable bit or of a link target as a change', () => {
    const plan = planSync([file('run.sh', 'a', true), link('l', 'x')], [file('run.sh', 'a', false), link('l', 'y')]);
    expect(plan.send).toEqual(['l', 'run.sh']);
    expect(plan.changed).toBe(2);
  });

  it('removes a gone folder as one path and counts the files in it', () => {
    const remote = [dir('build'), dir('build/out'), file('build/out/a.js'), file('build/b.js'), file('keep.txt')];
    const plan = planSync([file('keep.txt')], remote);
    expect(plan.delete).toEqual(['build']);
    expect(plan.removed).toBe(2);
  });

  it('sends a folder the workspace lacks, even an empty one', () => {
    expect(planSync([dir('empty')], []).send).toEqual(['empty']);
  });

  it('replaces an entry whose type changed without removing what lay under it first', () => {
    // The folder has `src` as a file where the workspace has a folder: sending it replaces the folder.
    const plan = planSync([file('src')], [dir('src'), file('src/a.ts')]);
    expect(plan).toMatchObject({ send: ['src'], delete: [], changed: 1 });
    // And the other way round: a folder where the workspace has a link.
    expect(planSync([dir('lib'), file('lib/x.ts')], [link('lib', '/etc')]).send).toEqual(['lib', 'lib/x.ts']);
  });

  it('keeps what the workspace has in .weft/ but sends what the folder has there', () => {
    const remote = [dir('.weft'), file('.weft/settings.json'), file('.weft/chains/review.yaml')];
    const plan = planSync([dir('.weft'), file('.weft/settings.json', 'b')], remote);
    expect(plan).toMatchObject({ send: ['.weft/settings.json'], delete: [] });
    expect(planSync([], remote).delete).toEqual([]);
  });

  it('removes something code left in the workspace that no upload can hold', () => {
    expect(planSync([], [{ path: 'fifo', type: 'other' }])).toMatchObject({ delete: ['fifo'], removed: 1 });
  });
});
