import { Command } from 'commander';
import { errColors, outColors, type CliContext } from '../context';
import { CheckReporter } from '../setup/check-reporter';
import { SetupInterruptedError, TerminalPrompter } from '../setup/prompter';
import { DEFAULT_GATEWAY_URL, SetupFlow, type SetupOptions } from '../setup/setup-flow';

const EXAMPLES = `
Checks, one line each: the gateway answers and is ready (GET /readyz), the key works, the models
on offer (local, remote, scripted), and that the sandbox runs a command; then saves the gateway and
key as \`weft login\` does. Exit code 0 when every check passed, 1 otherwise.

The gateway: --url, else WEFT_URL, else the saved one, else asked (${DEFAULT_GATEWAY_URL} by default).
The key: --key, else WEFT_KEY, else the one saved for that gateway, else asked. With the gateway's
admin token (--admin-token or WEFT_ADMIN_TOKEN, or typed when you say you are the admin), setup
makes an admin user (--name, default your login name) and a key when it has no key that works.

Examples:
  weft setup                                         # asks for what it cannot find
  weft setup --yes --url http://weft.internal:8080 --key weft_…
  WEFT_ADMIN_TOKEN=… weft setup --yes --name ada     # the admin's first run on the server`;

export function setupCommand(ctx: CliContext): Command {
  return new Command('setup')
    .description('first run: find the gateway, check it, its models and sandbox, and save a working key (making one as admin)')
    .option('--url <gateway>', `the gateway (default: $WEFT_URL, the saved one, else asked; ${DEFAULT_GATEWAY_URL} under --yes)`)
    .option('--key <key>', 'your API key (default: $WEFT_KEY, then the saved one)')
    .option('--admin-token <token>', "the gateway's WEFT_ADMIN_TOKEN, to make a user and key when there is no working key (default: $WEFT_ADMIN_TOKEN)")
    .option('--name <name>', 'the user to make with the admin token (default: your login name)')
    .option('-y, --yes', 'ask nothing: fail, saying what is missing, where a question would be asked')
    .addHelpText('after', EXAMPLES)
    .action(async (options: SetupOptions) => {
      const prompter = options.yes ? undefined : new TerminalPrompter(ctx, errColors(ctx));
      const flow = new SetupFlow(ctx, options, new CheckReporter(ctx.stdout, outColors(ctx)), prompter);
      try {
        ctx.exitCode = await flow.run();
      } catch (error) {
        if (!(error instanceof SetupInterruptedError)) throw error;
        ctx.stderr.write(`\n${errColors(ctx).yellow(error.message)}\n`); // the question stays unanswered on its line
        ctx.exitCode = 130;
      } finally {
        prompter?.close();
      }
    });
}
