import { type Command, InvalidArgumentError } from 'commander';

/** A whole number for a count or a quota (`0` turns a quota off); commander reports anything else. */
export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('not a whole number.');
  return n;
}

export function utcDay(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) throw new InvalidArgumentError('not a day: use YYYY-MM-DD (UTC).');
  return value;
}

/** `--from`, `--to`, `--model`: shared by `weft usage` and `weft admin usage`. */
export function withUsageFilter(command: Command): Command {
  return command
    .option('--from <YYYY-MM-DD>', 'first UTC day (default: 29 days before --to)', utcDay)
    .option('--to <YYYY-MM-DD>', 'last UTC day, inclusive (default: today)', utcDay)
    .option('--model <id>', 'only this model');
}
