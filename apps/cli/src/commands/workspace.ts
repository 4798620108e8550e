import { resolve } from 'node:path';
import { Command } from 'commander';
import { extractArchive } from '../archive';
import { connect, outColors, status, type CliContext } from '../context';
import { uploadDirectory, workspaceForFolder } from '../folder-workspace';
import { formatBytes } from '../format-bytes';
import { tableText } from '../table';
import { WorkspaceFolders } from '../workspace-folders';

export function workspaceCommand(ctx: CliContext): Command {
  const workspace = new Command('workspace').description('your workspaces on the gateway: list, upload, download, rename, delete');
  workspace
    .command('list')
    .description('your workspaces, newest first, with their size and when a session last used them (UTC)')
    .action(async () => {
      const workspaces = await (await connect(ctx)).workspaces();
      const c = outColors(ctx);
      if (workspaces.length === 0) {
        ctx.stdout.write(c.dim('no workspaces\n'));
        return;
      }
      const when = (iso: string) => iso.slice(0, 16).replace('T', ' ');
      const rows = workspaces.map((w) => [w.name, w.id, String(w.files), formatBytes(w.bytes), when(w.lastUsedAt)]);
      ctx.stdout.write(tableText([{ header: 'name' }, { header: 'id' }, { header: 'files', align: 'right' }, { header: 'size', align: 'right' }, { header: 'last used' }], rows, c));
    });
  workspace
    .command('rename')
    .description('give a workspace another name')
    .argument('<id>', 'the workspace id (ws_…)')
    .argument('<name>', 'its new name')
    .action(async (id: string, name: string) => {
      const renamed = await (await connect(ctx)).renameWorkspace(id, name);
      status(ctx, `renamed ${renamed.id} to ${renamed.name}`);
    });
  workspace
    .command('delete')
    .description("delete a workspace and its files (refused while a turn runs in it); its sessions keep their history")
    .argument('<id>', 'the workspace id (ws_…)')
    .action(async (id: string) => {
      await (await connect(ctx)).deleteWorkspace(id);
      await new WorkspaceFolders(ctx.env).forget(id);
      status(ctx, `deleted ${id}`);
    });
  workspace
    .command('push')
    .description('upload a folder as a new workspace (its project files: what git ignores, .weftignore, .git and node_modules left out); prints its id')
    .argument('[dir]', 'the folder to upload', '.')
    .action(async (dir: string) => {
      const id = await uploadDirectory(ctx, await connect(ctx), resolve(ctx.cwd, dir));
      ctx.stdout.write(`${id}\n`);
    });
  workspace
    .command('sync')
    .description('send what changed in a folder to the workspace it was uploaded to (a new upload the first time); prints its id')
    .argument('[dir]', 'the folder', '.')
    .option('--discard-unapplied', "let the folder's version replace changes in the workspace that were never applied here")
    .action(async (dir: string, options: { discardUnapplied?: boolean }) => {
      const id = await workspaceForFolder(ctx, await connect(ctx), resolve(ctx.cwd, dir), { unapplied: options.discardUnapplied ? 'discard' : 'ask' });
      ctx.stdout.write(`${id}\n`);
    });
  workspace
    .command('pull')
    .description('download a workspace and extract it into a folder')
    .argument('<id>', 'the workspace id (ws_…)')
    .argument('[dir]', 'where to extract it (default: ./<id>)')
    .action(async (id: string, dir: string | undefined) => {
      const target = resolve(ctx.cwd, dir ?? id);
      const archive = await (await connect(ctx)).downloadWorkspace(id);
      await extractArchive(archive, target);
      status(ctx, `extracted ${id} into ${target}`);
    });
  return workspace;
}
