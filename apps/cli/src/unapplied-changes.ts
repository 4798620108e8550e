import { createInterface } from 'node:readline/promises';
import { confirm } from './confirm';
import type { CliContext } from './context';
import type { SyncPlan } from './sync-plan';

/** What to do with changes a workspace holds that its folder does not, before a sync replaces them. */
export type UnappliedPolicy = 'ask' | 'keep' | 'discard';
export type UnappliedChoice = 'apply' | 'keep' | 'discard';

/** Paths named in the question; the rest are counted. */
const SHOWN_PATHS = 5;

/**
 * Of the paths changed in the workspace since its last upload or sync (its patch), those the
 * sync would overwrite or remove: the agent's work that exists nowhere else.
 */
export function unappliedAtRisk(changedInWorkspace: readonly string[], plan: SyncPlan): string[] {
  const sent = new Set(plan.send);
  return changedInWorkspace.filter((path) => sent.has(path) || plan.delete.some((gone) => path === gone || path.startsWith(`${gone}/`)));
}

export function describePaths(paths: readonly string[]): string {
  const more = paths.length > SHOWN_PATHS ? ` and ${paths.length - SHOWN_PATHS} more` : '';
  return `${paths.slice(0, SHOWN_PATHS).join(', ')}${more}`;
}

/**
 * `keep` and `discard` as the policy says; `ask` asks on a terminal (discarding only after a
 * second, explicit yes) and keeps them where no one can answer.
 */
export async function chooseForUnapplied(ctx: CliContext, workspaceId: string, paths: readonly string[], policy: UnappliedPolicy): Promise<UnappliedChoice> {
  if (policy !== 'ask') return policy;
  if (!ctx.stdin.isTTY) return 'keep';
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr as NodeJS.WritableStream, terminal: true });
  let answer: string;
  try {
    answer = await rl.question(
      `workspace ${workspaceId} holds ${paths.length} change${paths.length === 1 ? '' : 's'} not applied here (${describePaths(paths)}).\n` +
        '  a  apply them to this folder first\n  k  keep them there, and upload this folder as a new workspace\n  d  discard them\n[a/K/d] ',
    );
  } finally {
    rl.close();
  }
  const key = answer.trim().toLowerCase();
  if (key === 'a') return 'apply';
  if (key === 'd' && (await confirm(ctx, `discard ${describePaths(paths)} in ${workspaceId} for good?`))) return 'discard';
  return 'keep';
}
