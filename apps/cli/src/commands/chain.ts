import { Command } from 'commander';
import { inputsFromWords } from '../chain-inputs';
import { connect, type CliContext } from '../context';
import { UsageError } from '../errors';
import { openSession, openWorkspace } from '../session-target';
import { type OneTurnOptions, followOneTurn, withOneTurnOptions } from './run';

interface ChainOptions extends OneTurnOptions {
  readonly list?: boolean;
}

export function chainCommand(ctx: CliContext): Command {
  return withOneTurnOptions(
    new Command('chain')
      .description("run one of the workspace's chains (.weft/chains/<name>.yaml) with its inputs; exits 1 if it fails")
      .argument('[name]', 'the chain')
      .argument('[inputs...]', 'its inputs, as key=value (quote values with spaces)'),
  )
    .option('-l, --list', "list the workspace's chains and their inputs instead")
    .addHelpText('after', '\nExamples:\n  weft chain --list --dir .\n  weft chain fix-bug issue="the login page crashes" --session ses_…')
    .action(async (name: string | undefined, inputs: string[], options: ChainOptions) => {
      const client = await connect(ctx);
      if (!options.list && !name) throw new UsageError('name the chain to run, or pass --list');
      if (options.list) {
        // The session's workspace, or the one --workspace or the folder names: no session is made to list.
        const chains = options.session ? await client.chains(options.session) : await client.listWorkspaceChains(await openWorkspace(ctx, client, options));
        for (const chain of chains) {
          if ('error' in chain) ctx.stdout.write(`${chain.name}  ${chain.error}\n`);
          else ctx.stdout.write(`${chain.name}  ${Object.keys(chain.inputs).map((key) => `${key}=…`).join(' ')}  ${chain.description ?? ''}\n`);
        }
        return;
      }
      const sessionId = await openSession(ctx, client, options, `chain ${name as string}`);
      const start = { chain: name as string, inputs: inputsFromWords(inputs) };
      await followOneTurn(ctx, client, sessionId, start, options);
    });
}
