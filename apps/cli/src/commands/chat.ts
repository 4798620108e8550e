import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import { reportChanges } from '../changes-hint';
import { answerMarkdown, connect, errColors, outColors, status, type CliContext } from '../context';
import { ApiError, describeError, formatError } from '../errors';
import { LineReader } from '../line-reader';
import { singleKeyAnswers, terminalPermissionPrompt } from '../permission-prompt';
import { TurnRenderer } from '../render';
import { ToolResults } from '../tool-results';
import { openSession, type SessionTargetOptions } from '../session-target';
import { type ChatState, SlashCommands, isSlashCommand } from '../slash-commands';
import { type TurnStart, runTurn } from '../turn';
import { TurnInterrupts } from '../turn-interrupts';
import { withTargetOptions } from './target-options';

export function chatCommand(ctx: CliContext): Command {
  return withTargetOptions(
    new Command('chat').description(
      'talk with the agent in a loop: /help lists commands; Ctrl-C cancels a running turn, and leaves when none runs (or pressed again); /exit or Ctrl-D quits',
    ),
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
    const messagePrompt = c.bold(c.cyan('› '));
    rl.setPrompt(messagePrompt);
    const interrupts = new TurnInterrupts();
    const interrupt = (): void => {
      const action = interrupts.press();
      if (action === 'cancel') return void ctx.stderr.write(errColors(ctx).dim('\ncancelling the turn… (Ctrl-C again to leave)\n'));
      // Leaving during a turn: runTurn rejects and the loop ends; at the prompt, closing the input ends it.
      if (!interrupts.running) rl.close();
    };
    rl.on('SIGINT', interrupt); // raw-mode terminals deliver Ctrl-C here, not as a signal
    const stopListening = ctx.onInterrupt(interrupt);
    // The reader buffers lines, so piped input typed ahead of a turn is not lost.
    const lines = new LineReader(rl[Symbol.asyncIterator]());
    const kept = new ToolResults();
    const renderer = new TurnRenderer(ctx.stdout, c, answerMarkdown(ctx, options.raw), kept);
    const commands = new SlashCommands(client, state, ctx.stdout, ctx.stderr, c, { kept, renderer });
    // Answers come from the same line reader as messages, so typed-ahead input stays in order.
    // The question is readline's prompt while it waits, so a redraw (a backspace) keeps it on screen.
    const askPermission = terminalPermissionPrompt(ctx.stdout, c, async (question, signal) => {
      // Piped input may have ended already, its lines still buffered: then the question is only printed.
      if (inputClosed) ctx.stdout.write(question);
      else {
        rl.setPrompt(question);
        rl.prompt();
      }
      try {
        return await lines.next(signal);
      } finally {
        rl.setPrompt(messagePrompt);
      }
    }, terminal ? singleKeyAnswers(rl, ctx.stdin) : undefined);
    try {
      for (;;) {
        prompt();
        const line = await lines.next();
        if (line === undefined) break;
        const content = line.trim();
        if (!content) continue;
        let start: TurnStart = { message: content };
        if (isSlashCommand(content)) {
          const outcome = await commands.run(content);
          if (outcome === 'quit') break;
          if (outcome === 'continue') continue;
          start = outcome.start;
        }
        const control = interrupts.beginTurn();
        try {
          const outcome = await runTurn(
            {
              client,
              renderer,
              onReconnect: (n) => status(ctx, `reconnecting (${n})…`),
              onCancelFailed: (error) => ctx.stderr.write(`${errColors(ctx).red(`could not cancel the turn: ${describeError(error)}`)}\n`),
              askPermission,
              askerShowsRequest: true,
            },
            state.sessionId,
            start,
            control,
          );
          if (outcome.touchedFiles) await reportChanges(ctx, client, state.sessionId, outcome.workspaceId);
        } catch (error) {
          renderer.endLine();
          if (control.leave?.aborted) {
            ctx.stderr.write(`${errColors(ctx).yellow('left')}: ${interrupts.cancelRequested ? 'the turn is being cancelled' : 'the turn goes on'} in the session\n`);
            break;
          }
          if (error instanceof ApiError) ctx.stderr.write(`${errColors(ctx).red(formatError(error))}\n`);
          else throw error;
        } finally {
          interrupts.endTurn();
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
