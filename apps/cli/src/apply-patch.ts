import type { GitPort } from './git';
import { type PatchSummary, summarizePatch } from './patch-summary';

export interface ApplyOptions {
  /** Apply over uncommitted changes too. */
  readonly force?: boolean;
  /** Check and report, write nothing. */
  readonly dryRun?: boolean;
  /** Answers which of the patch's paths the folder ignores (git's ignore rules): those are never written. */
  readonly ignored?: (paths: readonly string[]) => Promise<ReadonlySet<string>>;
}

/** What applying a workspace's patch to a folder came to; the refusals change nothing. */
export type ApplyResult =
  | { readonly kind: 'nothing-to-apply'; readonly summary: PatchSummary; readonly leftOut: readonly string[] }
  | { readonly kind: 'applied' | 'would-apply' | 'already-applied'; readonly summary: PatchSummary; readonly leftOut: readonly string[] }
  | { readonly kind: 'dirty'; readonly files: readonly string[] }
  | { readonly kind: 'conflict'; readonly summary: PatchSummary; readonly reason: string };

/**
 * `git apply --check`, then `git apply`, in a folder that may or may not be in a git repository.
 * In one, uncommitted changes to tracked files are refused (unless forced) so the agent's work
 * stays apart from the user's, and a folder below the top gets `--directory`, without which git
 * would skip every path of the patch.
 */
export async function applyPatch(git: GitPort, patch: string, options: ApplyOptions = {}): Promise<ApplyResult> {
  const whole = summarizePatch(patch);
  const ignored = options.ignored ? await options.ignored(whole.files.map((file) => file.path)) : new Set<string>();
  const leftOut = whole.files.map((file) => file.path).filter((path) => ignored.has(path));
  const summary = { ...whole, files: whole.files.filter((file) => !ignored.has(file.path)) };
  if (summary.files.length === 0) return { kind: 'nothing-to-apply', summary, leftOut };
  const prefix = await git.repositoryPrefix();
  if (prefix !== undefined && !options.force) {
    const files = await git.uncommittedChanges();
    if (files.length > 0) return { kind: 'dirty', files };
  }
  const directory = prefix ? prefix : undefined;
  const exclude = leftOut.length > 0 ? leftOut : undefined;
  const check = await git.apply(patch, { check: true, directory, exclude });
  if (check.code !== 0) {
    const reverse = await git.apply(patch, { check: true, reverse: true, directory, exclude });
    if (reverse.code === 0) return { kind: 'already-applied', summary, leftOut };
    return { kind: 'conflict', summary, reason: check.stderr.trim() };
  }
  if (options.dryRun) return { kind: 'would-apply', summary, leftOut };
  const applied = await git.apply(patch, { directory, exclude });
  // Checked a moment ago; a file changed in between is the only way here.
  if (applied.code !== 0) return { kind: 'conflict', summary, reason: applied.stderr.trim() };
  return { kind: 'applied', summary, leftOut };
}
