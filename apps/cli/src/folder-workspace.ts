import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { WorkspaceSyncResult } from '@weft/contracts';
import type { ApiClient } from './api-client';
import { applyPatch } from './apply-patch';
import { packPaths } from './archive';
import { status, type CliContext } from './context';
import { ApiError, UsageError } from './errors';
import { folderManifest } from './folder-manifest';
import { GitCli } from './git';
import { summarizePatch } from './patch-summary';
import { ProjectFiles } from './project-files';
import { type SyncPlan, planSync } from './sync-plan';
import { chooseForUnapplied, describePaths, type UnappliedPolicy, unappliedAtRisk } from './unapplied-changes';
import { selectionSizes, tooLargeError, uploadLine } from './upload-report';
import { type FolderUpload, WorkspaceFolders, type WorkspaceOwner } from './workspace-folders';

/** Overwritten paths named in the output; the rest are counted. */
const SHOWN_PATHS = 5;

export interface FolderWorkspaceOptions {
  /** Upload a new workspace even if this folder has one (`--new-workspace`). */
  readonly fresh?: boolean;
  /** Changes in the workspace that the folder lacks and a sync would replace: ask (the default), keep them, or discard them. */
  readonly unapplied?: UnappliedPolicy;
}

/**
 * The workspace for `dir` on this gateway: the one this user uploaded it to before, brought in
 * line with the folder by sending only what changed; or a new upload, with one line saying why.
 */
export async function workspaceForFolder(ctx: CliContext, client: ApiClient, dir: string, options: FolderWorkspaceOptions = {}): Promise<string> {
  const folders = new WorkspaceFolders(ctx.env);
  const owner: WorkspaceOwner = { gateway: client.baseUrl, userId: (await client.me()).id };
  if (options.fresh) return uploadDirectory(ctx, client, dir, owner, 'a new workspace, as --new-workspace asks');
  const uploads = await folders.uploadsFrom(dir);
  // Uploads remembered before owners were recorded are tried too: another user's is a 404.
  const candidate = uploads.find((u) => sameOwner(u.owner, owner)) ?? uploads.find((u) => !u.owner);
  if (!candidate) {
    const why = uploads[0] ? `a new workspace: this folder's ${uploads[0].workspaceId} ${elsewhere(uploads[0], owner)}` : undefined;
    return uploadDirectory(ctx, client, dir, owner, why);
  }
  const outcome = await syncFolder(ctx, client, dir, candidate.workspaceId, options.unapplied ?? 'ask');
  if (outcome.synced) {
    await folders.remember(candidate.workspaceId, dir, new Date(), owner);
    return candidate.workspaceId;
  }
  if (outcome.gone) await folders.forget(candidate.workspaceId);
  return uploadDirectory(ctx, client, dir, owner, `a new workspace: ${outcome.why}`);
}

/** Uploads `dir` as a new workspace and remembers where it came from, for `weft apply` and the next `weft run`. */
export async function uploadDirectory(ctx: CliContext, client: ApiClient, dir: string, owner?: WorkspaceOwner, why?: string): Promise<string> {
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw new UsageError(`not a folder: ${dir}`);
  const files = await ProjectFiles.open(dir);
  const selection = await files.select();
  const archive = await packPaths(dir, selection.entries.map((entry) => entry.path));
  const sizes = await selectionSizes(dir, selection);
  const { workspaceUploadMaxBytes } = await client.settings();
  if (archive.byteLength > workspaceUploadMaxBytes) throw tooLargeError(dir, archive.byteLength, workspaceUploadMaxBytes, sizes.byPath);
  status(ctx, `uploading ${dir} as ${why ?? 'a new workspace'}: ${uploadLine(files, selection, sizes.total, archive.byteLength)}…`);
  const workspaceId = await client.uploadArchive(archive, basename(dir));
  await new WorkspaceFolders(ctx.env).remember(workspaceId, dir, new Date(), owner ?? { gateway: client.baseUrl, userId: (await client.me()).id });
  return workspaceId;
}

type SyncOutcome = { synced: true } | { synced: false; gone: boolean; why: string };

async function syncFolder(ctx: CliContext, client: ApiClient, dir: string, workspaceId: string, unapplied: UnappliedPolicy): Promise<SyncOutcome> {
  const manifest = await client.workspaceManifest(workspaceId).catch((error: unknown) => refusal(error, workspaceId));
  if ('synced' in manifest) return manifest;
  const files = await ProjectFiles.open(dir);
  const local = await folderManifest(dir, (await files.select()).entries);
  // What the workspace holds that the folder ignores (a .venv, build output) stays there.
  const here = new Set(local.map((entry) => entry.path));
  const onlyThere = manifest.entries.filter((entry) => !here.has(entry.path)).map((entry) => (entry.type === 'directory' ? `${entry.path}/` : entry.path));
  const ignored = await files.ignored(onlyThere);
  const remote = manifest.entries.filter((entry) => !ignored.has(entry.type === 'directory' ? `${entry.path}/` : entry.path));
  const plan = planSync(local, remote);
  if (plan.send.length === 0 && plan.delete.length === 0) {
    status(ctx, `workspace ${workspaceId}: up to date with ${dir} (${plural(plan.unchanged, 'file')} unchanged)`);
    return { synced: true };
  }
  const patch = await client.patch(workspaceId);
  const atRisk = unappliedAtRisk(summarizePatch(patch).files.map((file) => file.path), plan);
  if (atRisk.length > 0) {
    const choice = await chooseForUnapplied(ctx, workspaceId, atRisk, unapplied);
    const kept = `${workspaceId} holds changes not applied here (${describePaths(atRisk)}), kept there: \`weft apply ${workspaceId}\` writes them here`;
    if (choice === 'keep') return { synced: false, gone: false, why: kept };
    if (choice === 'apply') {
      const result = await applyPatch(new GitCli(dir), patch, { ignored: (paths) => files.ignored(paths) });
      if (result.kind !== 'applied' && result.kind !== 'already-applied') return { synced: false, gone: false, why: `${kept} (they do not apply cleanly: ${result.kind})` };
      status(ctx, `applied ${result.summary.files.length} changed file${result.summary.files.length === 1 ? '' : 's'} of ${workspaceId} to ${dir}`);
      return syncFolder(ctx, client, dir, workspaceId, 'keep');
    }
  }
  const archive = plan.send.length > 0 ? (await packPaths(dir, plan.send)).toString('base64') : undefined;
  const result = await client.syncWorkspace(workspaceId, { archiveBase64: archive, deleted: [...plan.delete] }).catch((error: unknown) => refusal(error, workspaceId));
  if ('synced' in result) return result;
  report(ctx, workspaceId, plan, result);
  return { synced: true };
}

function report(ctx: CliContext, workspaceId: string, plan: SyncPlan, result: WorkspaceSyncResult): void {
  const sent = plan.changed + plan.added;
  status(ctx, `workspace ${workspaceId}: sent ${plural(sent, 'changed file')}, removed ${plan.removed}, ${plan.unchanged} unchanged`);
  if (result.overwritten.length === 0) return;
  const shown = result.overwritten.slice(0, SHOWN_PATHS).join(', ');
  const more = result.overwritten.length > SHOWN_PATHS ? ` and ${result.overwritten.length - SHOWN_PATHS} more` : '';
  status(
    ctx,
    `the folder's version replaced ${plural(result.overwritten.length, 'path')} changed in the workspace since the last upload: ${shown}${more}`,
  );
}

/** Why the remembered workspace cannot be synced, when a new upload is the answer; other errors go on up. */
function refusal(error: unknown, workspaceId: string): SyncOutcome & { synced: false } {
  if (!(error instanceof ApiError)) throw error;
  if (error.status === 404) return { synced: false, gone: true, why: `${workspaceId}, which this folder was uploaded to, no longer exists (deleted, or expired after being idle)` };
  if (error.status === 409) {
    const sessions = error.details?.sessions;
    const what = Array.isArray(sessions) ? `a turn is running in it (session ${sessions.join(', ')})` : 'another sync or a delete holds it';
    return { synced: false, gone: false, why: `${workspaceId} is busy: ${what}` };
  }
  // The manifest's answer for a workspace with more entries than a sync handles.
  if (error.status === 413 && error.details?.maxEntries !== undefined) return { synced: false, gone: false, why: `${workspaceId} has too many files to sync` };
  throw error;
}

function sameOwner(a: WorkspaceOwner | undefined, b: WorkspaceOwner): boolean {
  return a !== undefined && a.gateway === b.gateway && a.userId === b.userId;
}

function elsewhere(upload: FolderUpload, owner: WorkspaceOwner): string {
  if (upload.owner && upload.owner.gateway !== owner.gateway) return `is on another gateway (${upload.owner.gateway})`;
  return 'belongs to another user';
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
