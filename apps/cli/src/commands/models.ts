import { Command } from 'commander';
import type { ModelInfo } from '@weft/contracts';
import { connect, outColors, type CliContext } from '../context';

/**
 * Replayed scripts and test models: every stack has a few, and they buried the real ones. The
 * scripted provider, and the `tiny` demo model (random weights: its answers are noise).
 */
export function isTestModel(model: Pick<ModelInfo, 'id' | 'provider'>): boolean {
  return model.provider === 'scripted' || model.id === 'tiny';
}

export function modelsCommand(ctx: CliContext): Command {
  return new Command('models')
    .description('list the models the gateway serves (real ones; --all adds the scripted and test models)')
    .option('--all', 'also list the scripted and test models (scripted/*, tiny)')
    .action(async (options: { all?: boolean }) => {
      const all = await (await connect(ctx)).models();
      const c = outColors(ctx);
      const models = options.all ? all : all.filter((model) => !isTestModel(model));
      const hidden = all.length - models.length;
      if (models.length === 0) ctx.stdout.write(c.dim(hidden ? 'no models but scripted and test ones\n' : 'no models\n'));
      const width = Math.max(0, ...models.map((model) => model.id.length));
      for (const model of models) {
        ctx.stdout.write(`${c.bold(model.id.padEnd(width))}  ${c.dim(`${model.provider} · context ${model.contextSize}`)}\n`);
      }
      if (hidden) ctx.stdout.write(c.dim(`${hidden} scripted or test model${hidden === 1 ? '' : 's'} hidden: weft models --all lists them\n`));
    });
}
