import { Command } from 'commander';
import { connect, errColors, outColors, status, type CliContext } from '../context';
import { TurnRenderer } from '../render';
import { openSession, type SessionTargetOptions } from '../session-target';
import { runTurn } from '../turn';
import { withTargetOptions } from './target-options';

interface RunOptions extends SessionTargetOptions {
  readonly json?: boolean;
}

export function runCommand(ctx: CliContext): Command {
  return withTargetOptions(
    new Command('run')
      .description('run one task in a session and stream the agent at work; exits 1 if the turn fails')
      .argument('<task>', 'what the agent should do, in quotes'),
  )
    .option('--json', 'print the raw session events as JSON lines')
    .addHelpText('after', '\nExamples:\n  weft run "fix the failing test" --dir .\n  weft run "now add a changelog entry" --session ses_…')
    .action(async (task: string, options: RunOptions) => {
      const client = await connect(ctx);
      const sessionId = await openSession(ctx, client, options, task.slice(0, 80));
      const renderer = new TurnRenderer(ctx.stdout, outColors(ctx));
      const interrupted = new AbortController();
      const stopListening = ctx.onInterrupt(() => interrupted.abort());
      try {
        const outcome = await runTurn(
          {
            client,
            renderer,
            jsonOut: options.json ? ctx.stdout : undefined,
            onReconnect: (attempt) => status(ctx, `event stream dropped; reconnecting (${attempt})…`),
          },
          sessionId,
          task,
          interrupted.signal,
        );
        if (outcome.status === 'failed') ctx.exitCode = 1;
      } catch (error) {
        if (!interrupted.signal.aborted) throw error;
        renderer.endLine();
        ctx.stderr.write(`${errColors(ctx).yellow('interrupted')}: the turn goes on in the session\n`);
        ctx.exitCode = 130;
      } finally {
        stopListening();
      }
      status(ctx, `session ${sessionId} · continue with: weft chat --session ${sessionId}`);
    });
}
