import { type Command, Option } from 'commander';
import type { LimitOverrides, Limits, UserLimits } from '../accounting-schemas';
import { outColors, status, type CliContext } from '../context';
import { tableText } from '../table';
import { describeQuota } from '../usage-view';
import type { AdminConnect } from './admin-connect';
import { wholeNumber } from './usage-options';

const LIMITS: ReadonlyArray<{ field: keyof Limits; flag: string; label: string; help: string }> = [
  { field: 'weight', flag: '--weight <n>', label: 'weight', help: 'share of a busy GPU, 1 to 100 (default 1)' },
  { field: 'requestsPerMinute', flag: '--requests-per-minute <n>', label: 'requests/min', help: 'requests per minute, 0 for no limit' },
  { field: 'concurrentTurns', flag: '--concurrent-turns <n>', label: 'concurrent turns', help: 'turns running at once, 0 for no limit' },
  { field: 'tokensPerDay', flag: '--tokens-per-day <n>', label: 'tokens/day', help: 'prompt tokens evaluated plus tokens generated per UTC day, 0 for no limit' },
  { field: 'sandboxSecondsPerDay', flag: '--sandbox-seconds-per-day <n>', label: 'sandbox s/day', help: 'wall-clock seconds of sandbox commands per UTC day, 0 for no limit' },
];

type LimitsOptions = LimitOverrides & { readonly reset?: boolean };

/** `limits <userId>`: shows them; with limit options, lays those over the current overrides. */
export function addLimitsCommand(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  const command = admin
    .command('limits')
    .description("show a user's limits, or override some of them (the others keep their current value)")
    .argument('<userId>', 'usr_…')
    .addOption(new Option('--reset', 'drop every override: the user is back on the server defaults').conflicts(LIMITS.map((limit) => limit.field)));
  for (const limit of LIMITS) command.addOption(new Option(limit.flag, limit.help).argParser(wholeNumber));
  command.action(async (userId: string, options: LimitsOptions) => {
    const client = await connect();
    const given = Object.fromEntries(LIMITS.flatMap(({ field }) => (options[field] === undefined ? [] : [[field, options[field]]])));
    let limits: UserLimits;
    if (options.reset) {
      limits = await client.replaceLimits(userId, {});
      status(ctx, `limits of ${userId} reset to the server defaults`);
    } else if (Object.keys(given).length > 0) {
      // PUT replaces the overrides: keep those not named here.
      limits = await client.replaceLimits(userId, { ...(await client.limits(userId)).overrides, ...given });
      status(ctx, `limits of ${userId} updated`);
    } else {
      limits = await client.limits(userId);
    }
    writeLimits(ctx, limits);
  });
}

function writeLimits(ctx: CliContext, limits: UserLimits): void {
  const c = outColors(ctx);
  const cell = (field: keyof Limits, value: number | undefined) => (value === undefined ? '-' : field === 'weight' ? String(value) : describeQuota(value));
  const rows = LIMITS.map(({ field, label }) => [label, cell(field, limits.defaults[field]), cell(field, limits.overrides[field]), cell(field, limits.effective[field])]);
  const columns = ['limit', 'default', 'override', 'in effect'].map((header) => ({ header }));
  ctx.stdout.write(`${c.bold(`limits of ${limits.userId}`)}\n${tableText(columns, rows, c)}`);
  ctx.stdout.write(`${c.dim('tokens used today:')} ${limits.tokensUsedToday}\n`);
}
