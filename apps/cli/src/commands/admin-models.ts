import { type Command, InvalidArgumentError } from 'commander';
import type { AdminModel, ModelSettings } from '@weft/contracts';
import { outColors, type CliContext } from '../context';
import { UsageError } from '../errors';
import { formatBytes } from '../format-bytes';
import { tableText } from '../table';
import type { AdminConnect } from './admin-connect';
import { pullWithProgress, pulledSummary } from './admin-models-progress';
import { parseByteSize } from './byte-size';

interface SettingOptions {
  contextSize?: number;
  sequences?: number;
  gpuLayers?: number | 'auto';
  threads?: number;
}

const EXAMPLES = `
Examples:
  weft admin models pull hf:bartowski/Qwen2.5-Coder-7B-Instruct-GGUF/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf
  weft admin models pull https://models.internal/coder.gguf --id coder --sha256 <hex> --max-size 8G
  weft admin models set coder --context-size 16384 --sequences 4
  weft admin models remove coder`;

/** `weft admin models`: pull GGUFs into the models volume, list, change and remove them. */
export function addModelsCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  const models = admin.command('models').description('the model registry: pull a GGUF (hf: or URL) into the models volume, list, set, remove').addHelpText('after', EXAMPLES);

  withSettings(
    models
      .command('pull <source>')
      .description('download hf:<owner>/<repo>/<file>.gguf or an http(s) URL with a progress bar, resume a broken download, verify size and SHA-256, register it; the fleet serves it at once')
      .option('--id <id>', 'the model id clients use (default: the file name without .gguf)')
      .option('--sha256 <hex>', 'the SHA-256 to check (default: what the source publishes: the hub, or a .sha256 beside the URL)')
      .option('--max-size <size>', 'refuse a file larger than this, e.g. 8G (default: the models volume\'s free space less 1 GiB)', parseByteSize),
  ).action(async (source: string, options: SettingOptions & { id?: string; sha256?: string; maxSize?: number }) => {
    const client = (await connect()).models();
    const settings = settingsOf(options);
    const model = await pullWithProgress(ctx, client, {
      source,
      ...(options.id ? { id: options.id } : {}),
      ...(options.sha256 ? { sha256: options.sha256 } : {}),
      ...(options.maxSize !== undefined ? { maxSizeBytes: options.maxSize } : {}),
      ...(Object.keys(settings).length ? { settings } : {}),
    });
    const c = outColors(ctx);
    const [first, ...rest] = pulledSummary(model);
    ctx.stdout.write(`${c.green('✓')} ${first}\n${rest.map((line) => `${c.dim(line)}\n`).join('')}`);
    ctx.stdout.write(`Try it: weft run "summarise this project" --model ${model.id}\n`);
  });

  models
    .command('list')
    .description('the models of the config file and the pulled ones, with what their GGUF says')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const list = await (await connect()).models().list();
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify({ models: list }, null, 2)}\n`);
        return;
      }
      const c = outColors(ctx);
      if (list.length === 0) {
        ctx.stdout.write(c.dim('no models: pull one with `weft admin models pull <hf:owner/repo/file.gguf | URL>`\n'));
        return;
      }
      const columns = [{ header: 'ID' }, { header: 'ORIGIN' }, { header: 'CONTEXT', align: 'right' as const }, { header: 'SIZE', align: 'right' as const }, { header: 'TOOLS' }, { header: 'FIM' }, { header: 'SOURCE' }];
      ctx.stdout.write(tableText(columns, list.map(row), c));
      for (const model of list) {
        if (model.quarantined) ctx.stdout.write(`${c.red('✗')} ${model.id} is quarantined and not loaded until its file changes: ${model.quarantined.reason}\n`);
      }
    });

  withSettings(models.command('set <id>').description("change a pulled model's settings; the workers reload it")).action(async (id: string, options: SettingOptions) => {
    const settings = settingsOf(options);
    if (Object.keys(settings).length === 0) throw new UsageError('nothing to set: pass --context-size, --sequences, --gpu-layers or --threads');
    const model = await (await connect()).models().set(id, settings);
    ctx.stdout.write(`${outColors(ctx).green('✓')} ${model.id}: ${Object.entries(model.settings).map(([key, value]) => `${key} ${JSON.stringify(value)}`).join(', ')}\n`);
  });

  models
    .command('remove <id>')
    .description('unregister a pulled model and delete its GGUF')
    .option('--keep-file', 'keep the GGUF in the models volume')
    .action(async (id: string, options: { keepFile?: boolean }) => {
      const removed = await (await connect()).models().remove(id, Boolean(options.keepFile));
      ctx.stdout.write(`${outColors(ctx).green('✓')} removed ${removed.id}${removed.fileRemoved ? ' and its file' : ' (the file is kept)'}\n`);
    });
}

function withSettings(command: Command): Command {
  return command
    .option('--context-size <tokens>', 'context size (default: what the GGUF was trained for, at most 32768)', positiveInt)
    .option('--sequences <n>', 'generations decoded together, each with its own KV cache', positiveInt)
    .option('--gpu-layers <n|auto>', 'layers offloaded to the GPU', (value: string) => (value === 'auto' ? 'auto' : wholeNumber(value, 0)))
    .option('--threads <n>', 'CPU threads for evaluation', positiveInt);
}

function settingsOf(options: SettingOptions): ModelSettings {
  return {
    ...(options.contextSize !== undefined ? { contextSize: options.contextSize } : {}),
    ...(options.sequences !== undefined ? { sequences: options.sequences } : {}),
    ...(options.gpuLayers !== undefined ? { gpuLayers: options.gpuLayers } : {}),
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
  };
}

function positiveInt(value: string): number {
  return wholeNumber(value, 1);
}

function wholeNumber(value: string, least: number): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < least) throw new InvalidArgumentError(`"${value}" is not a whole number of at least ${least}`);
  return parsed;
}

function row(model: AdminModel): string[] {
  const yesNo = (value: boolean | undefined) => (value === undefined ? '-' : value ? 'yes' : 'no');
  return [
    model.id,
    model.origin,
    String(model.contextSize),
    model.sizeBytes !== undefined ? formatBytes(model.sizeBytes) : '-',
    yesNo(model.gguf?.toolCalls),
    yesNo(model.gguf?.fim),
    model.source ?? model.file ?? model.provider,
  ];
}
