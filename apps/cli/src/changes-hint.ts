import type { ApiClient } from './api-client';
import { status, type CliContext } from './context';
import { ApiError } from './errors';
import { type PatchSummary, summarizePatch } from './patch-summary';
import { WorkspaceFolders } from './workspace-folders';

/** Files named in the hint; the rest are counted. */
export const MAX_NAMED_FILES = 5;

export interface ChangesTarget {
  readonly sessionId: string;
  readonly workspaceId: string;
  /** The folder the workspace was uploaded from, when this machine knows it. */
  readonly folder: string | undefined;
  readonly cwd: string;
}

/**
 * The line after a turn that wrote files: how many differ from the upload and how to get them.
 * Undefined when nothing differs.
 */
export function changesHint(summary: PatchSummary, target: ChangesTarget): string | undefined {
  const { files } = summary;
  if (files.length === 0) return undefined;
  const named = files.slice(0, MAX_NAMED_FILES).map((file) => file.path);
  const more = files.length > MAX_NAMED_FILES ? `, ${files.length - MAX_NAMED_FILES} more` : '';
  const count = `${files.length} file${files.length === 1 ? '' : 's'}`;
  const apply =
    target.folder === undefined
      ? `\`weft apply ${target.sessionId} --dir <folder>\` writes them into a copy of the original`
      : `\`weft apply ${target.sessionId}\` writes them ${target.folder === target.cwd ? 'here' : `into ${target.folder}`}`;
  return `${count} changed in the workspace (${named.join(', ')}${more}) · ${apply} · \`weft workspace pull ${target.workspaceId} <dir>\` downloads all of it`;
}

/** After a turn whose tool calls may have written files: fetches the workspace's patch and says what changed. */
export async function reportChanges(ctx: CliContext, client: ApiClient, sessionId: string, workspaceId: string): Promise<void> {
  let patch: string;
  try {
    patch = await client.patch(workspaceId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    status(ctx, `files changed in the workspace (${error.message}) · \`weft workspace pull ${workspaceId} <dir>\` downloads it`);
    return;
  }
  const folder = await new WorkspaceFolders(ctx.env).folderOf(workspaceId);
  const hint = changesHint(summarizePatch(patch), { sessionId, workspaceId, folder, cwd: ctx.cwd });
  if (hint) status(ctx, hint);
}
