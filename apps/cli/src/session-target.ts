import { basename, resolve } from 'node:path';
import type { ApiClient } from './api-client';
import { packDirectory } from './archive';
import { status, type CliContext } from './context';
import { UsageError } from './errors';
import { WorkspaceFolders } from './workspace-folders';

/** The options `run` and `chat` share for choosing where a turn happens. */
export interface SessionTargetOptions {
  readonly model?: string;
  readonly workspace?: string;
  readonly dir?: string;
  readonly session?: string;
}

/** Resumes `--session`, or creates a session on `--workspace` or on an upload of `--dir` (default: cwd). */
export async function openSession(
  ctx: CliContext,
  client: ApiClient,
  options: SessionTargetOptions,
  title?: string,
): Promise<string> {
  if (options.session) return options.session;
  const workspaceId = options.workspace ?? (await uploadDirectory(ctx, client, resolve(ctx.cwd, options.dir ?? '.')));
  const model = options.model ?? (await defaultModel(ctx, client));
  const sessionId = await client.createSession({ workspaceId, model, title });
  status(ctx, `session ${sessionId} · workspace ${workspaceId} · model ${model}`);
  return sessionId;
}

/** Uploads `dir` as a new workspace and remembers where it came from, for `weft apply`. */
export async function uploadDirectory(ctx: CliContext, client: ApiClient, dir: string): Promise<string> {
  const archive = await packDirectory(dir);
  status(ctx, `uploading ${dir} (${formatBytes(archive.byteLength)})…`);
  const workspaceId = await client.uploadWorkspace(archive, basename(dir));
  await new WorkspaceFolders(ctx.env).remember(workspaceId, dir);
  return workspaceId;
}

async function defaultModel(ctx: CliContext, client: ApiClient): Promise<string> {
  const { models } = await client.listModels();
  const first = models[0];
  if (!first) throw new UsageError('the gateway serves no models');
  if (models.length > 1) status(ctx, `using model ${first.id} (pick another with --model; see \`weft models\`)`);
  return first.id;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
