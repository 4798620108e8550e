import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { assertUnreachable } from '@weft/contracts';
import { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { type ApplyResult, applyPatch } from '../apply-patch';
import { connect, errColors, status, type CliContext } from '../context';
import { RefusedError, UsageError } from '../errors';
import { GitCli } from '../git';
import { changeLines } from '../patch-summary';
import { ProjectFiles } from '../project-files';
import { WorkspaceFolders } from '../workspace-folders';

/** Uncommitted files named when refusing; the rest are counted. */
const MAX_LISTED_DIRTY = 10;

interface ApplyCommandOptions {
  readonly dir?: string;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly check?: boolean;
}

export function applyCommand(ctx: CliContext): Command {
  return new Command('apply')
    .description("write the agent's changes (its workspace's patch) into the folder the workspace was uploaded from, with git apply")
    .argument('[id]', 'a session (ses_…) or workspace (ws_…); default: the workspace uploaded last from this folder (or --dir)')
    .option('-d, --dir <folder>', 'write into this folder instead (a copy of what was uploaded)')
    .option('--force', 'apply even though tracked files in the folder have uncommitted changes')
    .option('--dry-run', 'check that the changes apply and list them, writing nothing')
    .option('--check', 'the same as --dry-run')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  weft apply                    # after `weft run` here: the changes of its workspace',
        '  weft apply ses_… --dry-run    # which files would change',
        '  weft apply ws_… --dir ../copy',
        '',
        'The patch holds everything changed since the upload. It is checked before anything is written:',
        'when it does not apply cleanly, or (in a git repository) tracked files have uncommitted changes,',
        'nothing is written. The folder need not be a git repository; git must be installed.',
      ].join('\n'),
    )
    .action(async (id: string | undefined, options: ApplyCommandOptions) => {
      const client = await connect(ctx);
      const folders = new WorkspaceFolders(ctx.env);
      const workspaceId = await workspaceOf(ctx, client, folders, id, options.dir);
      const folder = options.dir ? resolve(ctx.cwd, options.dir) : await folders.folderOf(workspaceId);
      if (!folder) throw new UsageError(`this machine did not upload ${workspaceId}, so the folder is unknown: pass --dir <folder>`);
      if (!(await stat(folder).catch(() => undefined))?.isDirectory()) throw new UsageError(`not a folder: ${folder}`);
      const patch = await client.patch(workspaceId);
      const files = await ProjectFiles.open(folder);
      const result = await applyPatch(new GitCli(folder), patch, { force: options.force, dryRun: options.dryRun ?? options.check, ignored: (paths) => files.ignored(paths) });
      report(ctx, result, folder, workspaceId);
    });
}

/** The workspace named (directly, or by a session on it), or the one uploaded last from the folder. */
async function workspaceOf(ctx: CliContext, client: ApiClient, folders: WorkspaceFolders, id: string | undefined, dir: string | undefined): Promise<string> {
  if (id?.startsWith('ws_')) return id;
  if (id) return (await client.session(id)).workspaceId;
  const folder = resolve(ctx.cwd, dir ?? '.');
  const latest = await folders.latestFrom(folder);
  if (!latest) throw new UsageError(`no workspace was uploaded from ${folder} on this machine: name a session or workspace (see \`weft sessions\`)`);
  return latest;
}

function report(ctx: CliContext, result: ApplyResult, folder: string, workspaceId: string): void {
  if ('leftOut' in result && result.leftOut.length > 0) {
    const shown = result.leftOut.slice(0, MAX_LISTED_DIRTY).join(', ');
    const more = result.leftOut.length > MAX_LISTED_DIRTY ? ` and ${result.leftOut.length - MAX_LISTED_DIRTY} more` : '';
    status(ctx, `not written, as ${folder} ignores them (.gitignore, .weftignore): ${shown}${more}`);
  }
  switch (result.kind) {
    case 'nothing-to-apply':
      notes(ctx, result.summary.notes);
      return status(ctx, `nothing to apply: no file changed in ${workspaceId} since it was uploaded`);
    case 'already-applied':
      return status(ctx, `the changes of ${workspaceId} are already in ${folder}`);
    case 'dirty': {
      const more = result.files.length > MAX_LISTED_DIRTY ? `, ${result.files.length - MAX_LISTED_DIRTY} more` : '';
      throw new RefusedError(
        `${folder} has uncommitted changes (${result.files.slice(0, MAX_LISTED_DIRTY).join(', ')}${more}): commit or stash them first, ` +
          'so the agent\'s changes stay apart from yours, or pass --force. Nothing was written',
      );
    }
    case 'conflict':
      throw new RefusedError(
        `the changes of ${workspaceId} do not apply cleanly to ${folder}, so nothing was written:\n${indent(result.reason)}\n` +
          `Resolve the files above (or apply into a clean copy with --dir), or download the workspace: weft workspace pull ${workspaceId} <dir>`,
      );
    case 'applied':
    case 'would-apply': {
      for (const line of changeLines(result.summary.files)) ctx.stdout.write(`${line}\n`);
      notes(ctx, result.summary.notes);
      const count = `${result.summary.files.length} file${result.summary.files.length === 1 ? '' : 's'}`;
      return status(ctx, result.kind === 'applied' ? `applied ${count} from ${workspaceId} to ${folder}` : `${count} would change in ${folder} (nothing written)`);
    }
    default:
      return assertUnreachable(result);
  }
}

/** The patch's own remarks: files too large to be in it. */
function notes(ctx: CliContext, lines: readonly string[]): void {
  const c = errColors(ctx);
  for (const line of lines) ctx.stderr.write(`${c.yellow('not in the patch')}: ${line}\n`);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
