import { resolve } from 'node:path';
import type { ApiClient } from './api-client';
import { status, type CliContext } from './context';
import { UsageError } from './errors';
import { workspaceForFolder } from './folder-workspace';

export { formatBytes } from './format-bytes';

/** The options `run` and `chat` share for choosing where a turn happens. */
export interface SessionTargetOptions {
  readonly model?: string;
  readonly workspace?: string;
  readonly dir?: string;
  readonly session?: string;
  /** Upload `dir` as a new workspace even if it was uploaded before. */
  readonly newWorkspace?: boolean;
  /** Let the sync replace changes in the workspace that were never applied to `dir`, without asking. */
  readonly discardUnapplied?: boolean;
  /** The sandbox image a new session's commands run in (`--image`). */
  readonly image?: string;
  /** Print answers as written, without rendering their Markdown. */
  readonly raw?: boolean;
}

/**
 * Resumes `--session`, or creates a session on `--workspace` or on `--dir` (default: cwd): the
 * workspace this folder was uploaded to, synced, or a new upload.
 */
export async function openSession(
  ctx: CliContext,
  client: ApiClient,
  options: SessionTargetOptions,
  title?: string,
): Promise<string> {
  if (options.session) return options.session;
  const workspaceId = await openWorkspace(ctx, client, options);
  const model = options.model ?? (await defaultModel(ctx, client));
  const sessionId = await client.createSession({ workspaceId, model, title, ...(options.image ? { sandboxImage: options.image } : {}) });
  status(ctx, `session ${sessionId} · workspace ${workspaceId} · model ${model}`);
  return sessionId;
}

/** `--workspace`, or the workspace of `--dir` (default: cwd): the one it was uploaded to, synced, or a new upload. */
export async function openWorkspace(ctx: CliContext, client: ApiClient, options: SessionTargetOptions): Promise<string> {
  return options.workspace ?? (await workspaceForFolder(ctx, client, resolve(ctx.cwd, options.dir ?? '.'), { fresh: options.newWorkspace, unapplied: options.discardUnapplied ? 'discard' : 'ask' }));
}

async function defaultModel(ctx: CliContext, client: ApiClient): Promise<string> {
  const models = await client.models();
  const first = models[0];
  if (!first) throw new UsageError('the gateway serves no models');
  if (models.length > 1) status(ctx, `using model ${first.id} (pick another with --model; see \`weft models\`)`);
  return first.id;
}
