import { describe, expect, it } from 'vitest';
import { planSync } from './sync-plan';
import { unappliedAtRisk } from './unapplied-changes';

const file = (path: string, sha256 = 'a') => ({ path, type: 'file' as const, size: 1, sha256, executable: false });
const dir = (path: string) => ({ path, type: 'directory' as const });

describe('unapplied changes a sync would replace', () => {
  it('names the paths the agent changed that the sync would overwrite or remove, and none it leaves alone', () => {
    const local = [file('a.txt'), file('b.txt'), dir('src'), file('src/c.ts')];
    const remote = [file('a.txt', 'agent'), file('b.txt'), file('NOTES.md'), dir('scratch'), file('scratch/x'), dir('src'), file('src/c.ts', 'old')];
    const plan = planSync(local, remote);
    // src/c.ts differs too, but the agent did not change it: the folder changed it.
    expect(unappliedAtRisk(['a.txt', 'NOTES.md', 'scratch/x', 'b.txt'], plan)).toEqual(['a.txt', 'NOTES.md', 'scratch/x']);
  });

  it('finds nothing at risk when the folder already holds what the agent wrote', () => {
    const same = [file('a.txt', 'agent')];
    expect(unappliedAtRisk(['a.txt'], planSync(same, same))).toEqual([]);
  });
});
