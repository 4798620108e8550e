import { describe, expect, it } from 'vitest';
import { applyPatch } from './apply-patch';
import type { GitPort, GitResult } from './git';

const PATCH = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n';
const ok: GitResult = { code: 0, stdout: '', stderr: '' };
const failed = (stderr: string): GitResult => ({ code: 1, stdout: '', stderr });

/** A folder as git sees it; records every `git apply`. */
class FakeGit implements GitPort {
  readonly applies: Array<{ check?: boolean; reverse?: boolean; directory?: string }> = [];

  constructor(
    private readonly folder: { prefix?: string; dirty?: string[]; applies?: boolean; applied?: boolean } = {},
  ) {}

  async repositoryPrefix() {
    return this.folder.prefix;
  }

  async uncommittedChanges() {
    return this.folder.dirty ?? [];
  }

  async apply(_patch: string, options: { check?: boolean; reverse?: boolean; directory?: string }) {
    this.applies.push(options);
    if (options.reverse) return this.folder.applied ? ok : failed('error: patch failed');
    return this.folder.applies === false ? failed('error: patch failed: a.txt:1\nerror: a.txt: patch does not apply') : ok;
  }
}

describe('applyPatch', () => {
  it('checks, then applies, outside a repository', async () => {
    const git = new FakeGit();
    const result = await applyPatch(git, PATCH);
    expect(result).toMatchObject({ kind: 'applied', summary: { files: [{ path: 'a.txt', change: 'modified' }] } });
    expect(git.applies).toEqual([{ check: true, directory: undefined }, { directory: undefined }]);
  });

  it('applies below the top of a repository with --directory, or git would skip every path', async () => {
    const git = new FakeGit({ prefix: 'services/api/' });
    await applyPatch(git, PATCH);
    expect(git.applies).toEqual([{ check: true, directory: 'services/api/' }, { directory: 'services/api/' }]);
  });

  it('refuses a folder with uncommitted changes unless forced', async () => {
    const dirty = new FakeGit({ prefix: '', dirty: ['a.txt'] });
    expect(await applyPatch(dirty, PATCH)).toEqual({ kind: 'dirty', files: ['a.txt'] });
    expect(dirty.applies).toEqual([]);
    expect((await applyPatch(dirty, PATCH, { force: true })).kind).toBe('applied');
  });

  it("refuses a patch that does not apply with git's reason, and knows one that is applied already", async () => {
    expect(await applyPatch(new FakeGit({ applies: false }), PATCH)).toMatchObject({ kind: 'conflict', reason: 'error: patch failed: a.txt:1\nerror: a.txt: patch does not apply' });
    expect((await applyPatch(new FakeGit({ applies: false, applied: true }), PATCH)).kind).toBe('already-applied');
  });

  it('writes nothing on a dry run or for an empty patch', async () => {
    const git = new FakeGit();
    expect((await applyPatch(git, PATCH, { dryRun: true })).kind).toBe('would-apply');
    expect(git.applies).toEqual([{ check: true, directory: undefined }]);
    expect((await applyPatch(new FakeGit(), '')).kind).toBe('nothing-to-apply');
  });
});
