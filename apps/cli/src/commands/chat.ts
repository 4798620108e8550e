import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import { connect, errColors, outColors, status, type CliContext } from '../context';
import { ApiError, formatError } from '../errors';
import { terminalPermissionPrompt } from '../permission-prompt';
import { TurnRenderer } from '../render';
import { openSession, type SessionTargetOptions } from '../session-target';
import { type ChatState, SlashCommands, isSlashCommand } from '../slash-commands';
import { type TurnStart, runTurn } from '../turn';
import { withTargetOptions } from './target-options';

export function chatCommand(ctx: CliContext): Command {
  return withTargetOptions(
    new Command('chat').description('talk with the agent in a loop: /help lists commands, /exit or Ctrl-D quits, Ctrl-C stops following a turn'),
  ).action(async (options: SessionTargetOptions) => {
    const client = await connect(ctx);
    const state: ChatState = { sessionId: await openSession(ctx, client, options) };
    const c = outColors(ctx);
    const terminal = Boolean(ctx.stdin.isTTY && ctx.stdout.isTTY);
    const rl = createInterface({ input: ctx.stdin, output: ctx.stdout as NodeJS.WritableStream, terminal });
    let inputClosed = false;
    rl.once('close', () => (inputClosed = true));
    const prompt = (): void => {
      if (!inputClosed) rl.prompt();
    };
    rl.setPrompt(c.bold(c.cyan('› ')));
    let turn: AbortController | undefined;
    const interrupt = (): void => {
      if (turn) return turn.abort();
      ctx.stdout.write(c.dim('\n(type /exit or press Ctrl-D to quit)\n'));
      prompt();
    };
    rl.on('SIGINT', interrupt); // raw-mode terminals deliver Ctrl-C here, not as a signal
    const stopListening = ctx.onInterrupt(interrupt);
    // The iterator buffers lines, so piped input typed ahead of a turn is not lost.
    const lines = rl[Symbol.asyncIterator]();
    const renderer = new TurnRenderer(ctx.stdout, c);
    const commands = new SlashCommands(client, state, ctx.stdout, ctx.stderr, c);
    // Answers come from the same line reader as messages, so typed-ahead input stays in order.
    const askPermission = terminalPermissionPrompt(ctx.stdout, c, async () => {
      const next = await lines.next();
      return next.done ? undefined : String(next.value);
    });
    try {
      for (;;) {
        prompt();
        const next = await lines.next();
        if (next.done) break;
        const content = String(next.value).trim();
        if (!content) continue;
        let start: TurnStart = { message: content };
        if (isSlashCommand(content)) {
          const outcome = await commands.run(content);
          if (outcome === 'quit') break;
          if (outcome === 'continue') continue;
          start = outcome.start;
        }
        turn = new AbortController();
        try {
          await runTurn(
            { client, renderer, onReconnect: (n) => status(ctx, `reconnecting (${n})…`), askPermission },
            state.sessionId,
            start,
            turn.signal,
          );
        } catch (error) {
          renderer.endLine();
          if (turn.signal.aborted) ctx.stderr.write(`${errColors(ctx).yellow('interrupted')}: the turn goes on in the session\n`);
          else if (error instanceof ApiError) ctx.stderr.write(`${errColors(ctx).red(formatError(error))}\n`);
          else throw error;
        } finally {
          turn = undefined;
        }
      }
    } finally {
      stopListening();
      if (inputClosed) ctx.stdout.write('\n'); // Ctrl-D leaves the cursor after the prompt
      rl.close();
      status(ctx, `session ${state.sessionId} · continue with: weft chat --session ${state.sessionId}`);
    }
  });
}
