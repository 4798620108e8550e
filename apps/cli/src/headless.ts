import { writeFile } from 'node:fs/promises';
import type { StoredSessionEvent } from '@weft/contracts';
import type { ApiClient } from './api-client';
import { summarizePatch } from './patch-summary';
import type { TurnOutcome } from './turn';

/** For commander: `--allow A --allow B` → ['A', 'B']. */
export function collectRule(rule: string, rules: string[]): string[] {
  return [...rules, rule];
}

/**
 * Adds `--allow` and `--deny` rules to the session's own rules before its turn starts, so the
 * gateway's policy (with its bash grammar, not a pattern match here) answers the questions they
 * cover; what they leave open is asked, or refused where no one can answer.
 */
export async function addSessionRules(client: ApiClient, sessionId: string, rules: { readonly allow: readonly string[]; readonly deny: readonly string[] }): Promise<void> {
  if (rules.allow.length === 0 && rules.deny.length === 0) return;
  const current = (await client.permissionRules({ scope: 'session', id: sessionId })).rules;
  const merged = (own: readonly string[], added: readonly string[]) => [...new Set([...own, ...added])];
  await client.setSessionRules(sessionId, { allow: merged(current.allow, rules.allow), ask: current.ask, deny: merged(current.deny, rules.deny) });
}

/** The last answer and the usage of a turn, read off its events as they pass. */
export class TurnSummary {
  answer: string | null = null;
  usage: Extract<StoredSessionEvent, { type: 'turn.completed' }>['usage'] | null = null;
  iterations: number | null = null;

  observe(event: StoredSessionEvent): void {
    if (event.type === 'message.completed' && event.content) this.answer = event.content;
    if (event.type === 'turn.completed') {
      this.usage = event.usage;
      this.iterations = event.iterations;
    }
  }
}

export type ResultStatus = TurnOutcome['status'] | 'approval_needed' | 'interrupted';

/** The last line `weft run --json` prints: what a script needs without replaying the events. */
export interface RunResult {
  readonly type: 'weft.result';
  readonly status: ResultStatus;
  readonly exitCode: number;
  readonly sessionId: string;
  readonly turnId: string | null;
  readonly workspaceId: string | null;
  readonly answer: string | null;
  readonly usage: TurnSummary['usage'];
  readonly error: { readonly code: string | null; readonly message: string } | null;
  /** Paths the turn changed in the workspace, from its patch. */
  readonly filesChanged: ReadonlyArray<{ readonly path: string; readonly change: string }>;
  /** Where `--patch` wrote the workspace's patch; null without it or when nothing changed. */
  readonly patch: string | null;
}

/** The workspace's changed files and, with `patchFile`, its patch written there. */
export async function workspaceChanges(client: ApiClient, workspaceId: string, patchFile: string | undefined): Promise<Pick<RunResult, 'filesChanged' | 'patch'>> {
  const patch = await client.patch(workspaceId);
  const filesChanged = summarizePatch(patch).files.map(({ path, change }) => ({ path, change }));
  if (!patchFile || filesChanged.length === 0) return { filesChanged, patch: null };
  await writeFile(patchFile, patch);
  return { filesChanged, patch: patchFile };
}
