import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, Option } from 'commander';
import type { ExportFormat } from '../api-client';
import { connect, status, type CliContext } from '../context';
import { formatBytes } from '../session-target';

export function exportCommand(ctx: CliContext): Command {
  return new Command('export')
    .description("a session's conversation: Markdown to read, or JSONL (every message and event) for programs")
    .argument('<session>', 'the session (ses_…)')
    .addOption(new Option('-f, --format <format>', 'markdown or jsonl').choices(['markdown', 'jsonl']).default('markdown'))
    .option('-o, --output <file>', 'write it to this file instead of stdout')
    .addHelpText('after', '\nExamples:\n  weft export ses_… > session.md\n  weft export ses_… --format jsonl -o session.jsonl')
    .action(async (sessionId: string, options: { format: ExportFormat; output?: string }) => {
      const text = await (await connect(ctx)).exportSession(sessionId, options.format);
      if (!options.output) return void ctx.stdout.write(text);
      const file = resolve(ctx.cwd, options.output);
      await writeFile(file, text);
      status(ctx, `wrote ${sessionId} as ${options.format} (${formatBytes(Buffer.byteLength(text))}) to ${file}`);
    });
}
