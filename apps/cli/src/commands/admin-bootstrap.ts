import { Argument, type Command } from 'commander';
import type { BootstrapToken } from '../admin-client';
import { errColors, outColors, type CliContext } from '../context';
import type { AdminConnect } from './admin-connect';
import { shortTime } from './admin-users';

/** `rotate-token` and `bootstrap-token [status|off]`. */
export function addBootstrapCommands(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('rotate-token')
    .description('replace the bootstrap admin token (WEFT_ADMIN_TOKEN, or the last rotated one) with a new random one and print it, once; no restart')
    .action(async () => {
      const rotated = await (await connect()).rotateBootstrapToken();
      ctx.stdout.write(`${rotated.token}\n`);
      const e = errColors(ctx);
      ctx.stderr.write(e.dim(`the bootstrap token was rotated at ${shortTime(rotated.changedAt)} UTC: the one before is refused from now on, WEFT_ADMIN_TOKEN included\n`));
      ctx.stderr.write(`${e.yellow('! this token is shown only once: store it now (the gateway keeps only its hash)')}\n`);
    });
  admin
    .command('bootstrap-token')
    .description("show the bootstrap admin token's state, or turn it off (`off`): then only admin users' keys manage the gateway (with SSO on, an admin must have signed in through the identity provider first; WEFT_ADMIN_TOKEN_RESTORE=true at the gateway's start brings it back)")
    .addArgument(new Argument('[action]', 'status, or off').choices(['status', 'off']).default('status'))
    .action(async (action: 'status' | 'off') => {
      const client = await connect();
      const token = action === 'off' ? await client.turnOffBootstrapToken() : await client.bootstrapToken();
      writeState(ctx, token, action === 'off');
    });
}

function writeState(ctx: CliContext, token: BootstrapToken, turnedOff: boolean): void {
  const c = outColors(ctx);
  const since = shortTime(token.changedAt);
  const state = {
    env: "WEFT_ADMIN_TOKEN from the gateway's environment",
    rotated: `the token rotated at ${since} UTC (WEFT_ADMIN_TOKEN is refused)`,
    off: `off since ${since} UTC: only admin users' keys manage this gateway`,
  }[token.state];
  ctx.stdout.write(`${turnedOff ? `${c.green('✓')} ` : ''}bootstrap token: ${state}\n`);
  ctx.stdout.write(`${c.dim('enabled admin users:')} ${token.enabledAdmins}\n`);
  if (token.state === 'off') ctx.stdout.write(c.dim('`weft admin rotate-token` turns it back on with a new token\n'));
}
