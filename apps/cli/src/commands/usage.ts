import { Command } from 'commander';
import type { UsageFilter } from '../accounting-schemas';
import { connect, outColors, type CliContext } from '../context';
import { describeLimits, usageLines } from '../usage-view';
import { withUsageFilter } from './usage-options';

export function usageCommand(ctx: CliContext): Command {
  return withUsageFilter(new Command('usage').description('your usage per UTC day and model, your limits, and the tokens used today'))
    .option('--json', 'print what the gateway sent: { "usage": …, "limits": … }')
    .action(async (options: UsageFilter & { json?: boolean }) => {
      const client = await connect(ctx);
      const [usage, limits] = await Promise.all([client.usage({ from: options.from, to: options.to, model: options.model }), client.limits()]);
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify({ usage, limits }, null, 2)}\n`);
        return;
      }
      const c = outColors(ctx);
      for (const line of usageLines(usage, c)) ctx.stdout.write(`${line}\n`);
      ctx.stdout.write(`${c.dim('limits:')} ${describeLimits(limits.limits)} · ${limits.tokensUsedToday} tokens used today\n`);
    });
}
