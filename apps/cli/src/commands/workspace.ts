import { resolve } from 'node:path';
import { Command } from 'commander';
import { extractArchive } from '../archive';
import { connect, status, type CliContext } from '../context';
import { uploadDirectory } from '../session-target';

export function workspaceCommand(ctx: CliContext): Command {
  const workspace = new Command('workspace').description('move files between a folder and a workspace on the gateway');
  workspace
    .command('push')
    .description('upload a folder (without .git and node_modules) as a new workspace; prints its id')
    .argument('[dir]', 'the folder to upload', '.')
    .action(async (dir: string) => {
      const id = await uploadDirectory(ctx, await connect(ctx), resolve(ctx.cwd, dir));
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
