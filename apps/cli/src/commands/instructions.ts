import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { text as readStream } from 'node:stream/consumers';
import { Command } from 'commander';
import type { Instructions } from '../api-client';
import { connect, status, type CliContext } from '../context';
import { UsageError } from '../errors';

export function instructionsCommand(ctx: CliContext): Command {
  const instructions = new Command('instructions').description(
    "your personal instructions: added to the system prompt of every turn of yours, after the workspace's AGENTS.md",
  );
  instructions
    .command('show', { isDefault: true })
    .description('print them')
    .action(async () => {
      const current = await (await connect(ctx)).instructions();
      if (current.content === '') return void status(ctx, 'no personal instructions: set them with weft instructions set "…" (or --file)');
      ctx.stdout.write(current.content.endsWith('\n') ? current.content : `${current.content}\n`);
      status(ctx, updated(current));
    });
  instructions
    .command('set')
    .description('replace them with the text given, or with a file')
    .argument('[text...]', 'the instructions, in quotes')
    .option('-f, --file <path>', 'read them from this file ("-": standard input)')
    .addHelpText('after', '\nExamples:\n  weft instructions set "Answer briefly. Run the tests before you finish."\n  weft instructions set --file ~/notes/weft.md')
    .action(async (words: string[], options: { file?: string }) => {
      if (options.file && words.length > 0) throw new UsageError('give the instructions as text or with --file, not both');
      const content = options.file ? await readSource(ctx, options.file) : words.join(' ');
      if (content.trim() === '') throw new UsageError('no instructions given: to remove them, use weft instructions clear');
      const saved = await (await connect(ctx)).setInstructions(content);
      status(ctx, `saved ${saved.content.length} characters · ${updated(saved)}`);
    });
  instructions
    .command('clear')
    .description('remove them')
    .action(async () => {
      await (await connect(ctx)).setInstructions('');
      status(ctx, 'removed your personal instructions');
    });
  return instructions;
}

function updated(instructions: Instructions): string {
  return instructions.updatedAt ? `updated ${instructions.updatedAt.slice(0, 16).replace('T', ' ')} UTC` : 'not saved yet';
}

async function readSource(ctx: CliContext, file: string): Promise<string> {
  if (file === '-') return readStream(ctx.stdin);
  return readFile(resolve(ctx.cwd, file), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ENOENT' ? new UsageError(`no such file: ${file}`) : error;
  });
}
