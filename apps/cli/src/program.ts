import { Command, CommanderError } from 'commander';
import { adminCommand } from './commands/admin';
import { applyCommand } from './commands/apply';
import { chainCommand } from './commands/chain';
import { chatCommand } from './commands/chat';
import { connectCommand } from './commands/connect';
import { exportCommand } from './commands/export';
import { instructionsCommand } from './commands/instructions';
import { loginCommand } from './commands/login';
import { modelsCommand } from './commands/models';
import { runCommand } from './commands/run';
import { sessionsCommand } from './commands/sessions';
import { setupCommand } from './commands/setup';
import { usageCommand } from './commands/usage';
import { workspaceCommand } from './commands/workspace';
import { errColors, type CliContext } from './context';
import { formatError, UnattendedPermissionError } from './errors';
import { ExitCode } from './exit-codes';

export function createProgram(ctx: CliContext): Command {
  return new Command('weft')
    .description('Weft: a self-hosted coding agent, from your terminal')
    .version('0.1.0')
    .configureOutput({
      writeOut: (text) => ctx.stdout.write(text),
      writeErr: (text) => ctx.stderr.write(text),
    })
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .addCommand(setupCommand(ctx))
    .addCommand(loginCommand(ctx))
    .addCommand(modelsCommand(ctx))
    .addCommand(connectCommand(ctx))
    .addCommand(workspaceCommand(ctx))
    .addCommand(runCommand(ctx))
    .addCommand(chatCommand(ctx))
    .addCommand(chainCommand(ctx))
    .addCommand(sessionsCommand(ctx))
    .addCommand(applyCommand(ctx))
    .addCommand(exportCommand(ctx))
    .addCommand(instructionsCommand(ctx))
    .addCommand(usageCommand(ctx))
    .addCommand(adminCommand(ctx))
    .addHelpText('after', '\nStart with: weft setup (or weft login --url <gateway> --key <key>)');
}

/** Gives every subcommand the program's output and exit override: `addCommand` copies neither. */
function inheritSettings(command: Command): Command {
  for (const sub of command.commands) {
    sub.copyInheritedSettings(command);
    inheritSettings(sub);
  }
  return command;
}

/** Parses `argv`, runs the command and returns the exit code; every error is printed here, once. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const program = inheritSettings(createProgram(ctx));
  try {
    await program.parseAsync([...argv]);
    return ctx.exitCode;
  } catch (error) {
    // Commander already said why; its 0 is --help or --version.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.Done : ExitCode.Usage;
    ctx.stderr.write(`${errColors(ctx).red(formatError(error))}\n`);
    return error instanceof UnattendedPermissionError ? ExitCode.ApprovalNeeded : ExitCode.Failed;
  }
}
