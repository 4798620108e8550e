import { Command } from 'commander';
import { connect, outColors, type CliContext } from '../context';

export function modelsCommand(ctx: CliContext): Command {
  return new Command('models').description('list the models the gateway serves').action(async () => {
    const models = await (await connect(ctx)).models();
    const c = outColors(ctx);
    if (models.length === 0) ctx.stdout.write(c.dim('no models\n'));
    const width = Math.max(0, ...models.map((model) => model.id.length));
    for (const model of models) {
      ctx.stdout.write(`${c.bold(model.id.padEnd(width))}  ${c.dim(`${model.provider} · context ${model.contextSize}`)}\n`);
    }
  });
}
