import type { GitPort } from './git';
import { type PatchSummary, summarizePatch } from './patch-summary';

export interface ApplyOptions {
  /** Apply over uncommitted changes too. */
  readonly force?: boolean;
  /** Check and report, write nothing. */
  readonly dryRun?: boolean;
}

/** What applying a workspace's patch to a folder came to; the refusals change nothing. */
export type ApplyResult =
  | { readonly kind: 'nothing-to-apply'; readonly summary: PatchSummary }
  | { readonly kind: 'applied' | 'would-apply' | 'already-applied'; readonly summary: PatchSummary }
  | { readonly kind: 'dirty'; readonly files: readonly string[] }
  | { readonly kind: 'conflict'; readonly summary: PatchSummary; readonly reason: string };

/**
 * `git apply --check`, then `git apply`, in a folder that may or may not be in a git repository.
 * In one, uncommitted changes to tracked files are refused (unless forced) so the agent's work
 * stays apart from the user's, and a folder below the top gets `--directory`, without which git
 * would skip every path of the patch.
 */
export async function applyPatch(git: GitPort, patch: string, options: ApplyOptions = {}): Promise<ApplyResult> {
  const summary = summarizePatch(patch);
  if (summary.files.length === 0) return { kind: 'nothing-to-apply', summary };
  const prefix = await git.repositoryPrefix();
  if (prefix !== undefined && !options.force) {
    const files = await git.uncommittedChanges();
    if (files.length > 0) return { kind: 'dirty', files };
  }
  const directory = prefix ? prefix : undefined;
  const check = await git.apply(patch, { check: true, directory });
  if (check.code !== 0) {
    const reverse = await git.apply(patch, { check: true, reverse: true, directory });
    if (reverse.code === 0) return { kind: 'already-applied', summary };
    return { kind: 'conflict', summary, reason: check.stderr.trim() };
  }
  if (options.dryRun) return { kind: 'would-apply', summary };
  const applied = await git.apply(patch, { directory });
  // Checked a moment ago; a file changed in between is the only way here.
  if (applied.code !== 0) return { kind: 'conflict', summary, reason: applied.stderr.trim() };
  return { kind: 'applied', summary };
}
