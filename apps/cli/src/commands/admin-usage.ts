import type { Command } from 'commander';
import type { UsageFilter } from '../accounting-schemas';
import { outColors, type CliContext } from '../context';
import { usageLines } from '../usage-view';
import type { AdminConnect } from './admin-connect';
import { withUsageFilter } from './usage-options';

/** `usage`: every user's usage per UTC day and model, as a table or as the gateway's CSV. */
export function addAdminUsageCommand(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  withUsageFilter(admin.command('usage').description("every user's usage per UTC day and model"))
    .option('--user <userId>', 'only this user')
    .option('--csv', 'print CSV (a header line, then one line per day, user and model) for a spreadsheet')
    .action(async (options: UsageFilter & { user?: string; csv?: boolean }) => {
      const client = await connect();
      const filter = { from: options.from, to: options.to, model: options.model, user: options.user };
      if (options.csv) {
        ctx.stdout.write(await client.usageCsv(filter));
        return;
      }
      for (const line of usageLines(await client.usage(filter), outColors(ctx), { withUser: true })) ctx.stdout.write(`${line}\n`);
    });
}
