import { type Command, Option } from 'commander';
import { errColors, outColors, type CliContext } from '../context';
import type { AdminConnect } from './admin-connect';
import { shortTime } from './admin-users';
import { wholeNumber } from './usage-options';

const DAY_MS = 86_400_000;

interface CreateKeyOptions {
  readonly name?: string;
  readonly expires?: string;
  readonly expiresInDays?: number;
}

/** `create-key` and `revoke-key`. */
export function addKeyCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('create-key')
    .description('make a key for a user and print it: it is shown this once, the gateway keeps only its hash')
    .argument('<userId>', 'usr_…')
    .option('--name <name>', 'what the key is for, e.g. laptop')
    .addOption(new Option('--expires <iso>', 'refuse the key from this time on, e.g. 2027-01-31T00:00:00Z').conflicts('expiresInDays'))
    .addOption(new Option('--expires-in-days <n>', 'refuse the key this many days from now').argParser(wholeNumber))
    .action(async (userId: string, options: CreateKeyOptions) => {
      const expiresAt = options.expiresInDays === undefined ? options.expires : new Date(Date.now() + options.expiresInDays * DAY_MS).toISOString();
      const key = await (await connect()).createKey(userId, { name: options.name, expiresAt });
      ctx.stdout.write(`${key.key}\n`);
      const e = errColors(ctx);
      ctx.stderr.write(e.dim(`key ${key.id}${key.name ? ` (${key.name})` : ''} for ${userId}, expires ${key.expiresAt ? `${shortTime(key.expiresAt)} UTC` : 'never'}\n`));
      ctx.stderr.write(`${e.yellow('! this key is shown only once: store it now (the gateway keeps only its hash)')}\n`);
    });
  admin
    .command('revoke-key')
    .description("refuse one of a user's keys from the next request on")
    .argument('<userId>', 'usr_…')
    .argument('<keyId>', 'key_… (see `weft admin user <userId>`)')
    .action(async (userId: string, keyId: string) => {
      await (await connect()).revokeKey(userId, keyId);
      ctx.stdout.write(`${outColors(ctx).green('✓')} revoked ${keyId} of ${userId}\n`);
    });
}
