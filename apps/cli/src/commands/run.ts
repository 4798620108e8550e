import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { connect, errColors, outColors, status, type CliContext } from '../context';
import { allowEverythingOnce, terminalPermissionPrompt } from '../permission-prompt';
import { TurnRenderer } from '../render';
import { openSession, type SessionTargetOptions } from '../session-target';
import { type TurnStart, runTurn } from '../turn';
import { withTargetOptions } from './target-options';

export interface OneTurnOptions extends SessionTargetOptions {
  readonly json?: boolean;
  readonly yes?: boolean;
}

interface RunOptions extends OneTurnOptions {
  readonly plan?: boolean;
  readonly local?: boolean;
}

/** `--json` and `--yes`: shared by `run` and `chain`. */
export function withOneTurnOptions(command: Command): Command {
  return withTargetOptions(command)
    .option('--json', 'print the raw session events as JSON lines')
    .option('-y, --yes', 'allow every action the agent asks permission for, once each, without asking');
}

export function runCommand(ctx: CliContext): Command {
  return withOneTurnOptions(
    new Command('run')
      .description('run one task in a session and stream the agent at work; exits 1 if the turn fails')
      .argument('<task>', 'what the agent should do, in quotes'),
  )
    .option('--plan', 'planning mode: a plan, a list of subtasks, then each subtask in its own loop')
    .option('--local', 'send the task straight to the junior (local) model')
    .addHelpText(
      'after',
      '\nExamples:\n  weft run "fix the failing test" --dir .\n  weft run "now add a changelog entry" --session ses_…\n  weft run "add OAuth login" --plan --model scripted/senior',
    )
    .action(async (task: string, options: RunOptions) => {
      const turnOptions = { ...(options.plan ? { mode: 'plan' as const } : {}), ...(options.local ? { to: 'junior' as const } : {}) };
      const client = await connect(ctx);
      const sessionId = await openSession(ctx, client, options, task.slice(0, 80));
      await followOneTurn(ctx, client, sessionId, { message: task, options: turnOptions }, options);
    });
}

/**
 * Starts one turn and streams it to the end: permission questions asked at a terminal (or all
 * allowed once with `--yes`), exit code 1 when the turn fails, 130 on Ctrl-C (the turn goes on).
 */
export async function followOneTurn(ctx: CliContext, client: ApiClient, sessionId: string, start: TurnStart, options: OneTurnOptions): Promise<void> {
  const renderer = new TurnRenderer(ctx.stdout, outColors(ctx));
  const interrupted = new AbortController();
  const stopListening = ctx.onInterrupt(() => interrupted.abort());
  // Questions are asked at a terminal; piped input cannot answer, so they time out as denials.
  const terminal = Boolean(ctx.stdin.isTTY) && !options.json;
  const rl = terminal && !options.yes ? createInterface({ input: ctx.stdin, output: ctx.stdout as NodeJS.WritableStream }) : undefined;
  const askPermission = options.yes
    ? allowEverythingOnce
    : rl
      ? terminalPermissionPrompt(ctx.stdout, outColors(ctx), () => rl.question(''))
      : undefined;
  try {
    const outcome = await runTurn(
      {
        client,
        renderer,
        jsonOut: options.json ? ctx.stdout : undefined,
        onReconnect: (attempt) => status(ctx, `event stream dropped; reconnecting (${attempt})…`),
        askPermission,
      },
      sessionId,
      start,
      interrupted.signal,
    );
    if (outcome.status === 'failed') ctx.exitCode = 1;
  } catch (error) {
    if (!interrupted.signal.aborted) throw error;
    renderer.endLine();
    ctx.stderr.write(`${errColors(ctx).yellow('interrupted')}: the turn goes on in the session\n`);
    ctx.exitCode = 130;
  } finally {
    rl?.close();
    stopListening();
  }
  status(ctx, `session ${sessionId} · continue with: weft chat --session ${sessionId}`);
}
