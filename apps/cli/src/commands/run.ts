import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { reportChanges } from '../changes-hint';
import { answerMarkdown, connect, errColors, outColors, status, type CliContext } from '../context';
import { describeError } from '../errors';
import { allowEverythingOnce, refuseUnattended, singleKeyAnswers, terminalPermissionPrompt } from '../permission-prompt';
import { TurnRenderer } from '../render';
import { openSession, type SessionTargetOptions } from '../session-target';
import { type TurnDeps, type TurnStart, runTurn } from '../turn';
import { TurnInterrupts } from '../turn-interrupts';
import { withTargetOptions } from './target-options';

export interface OneTurnOptions extends SessionTargetOptions {
  readonly json?: boolean;
  readonly yes?: boolean;
}

interface RunOptions extends OneTurnOptions {
  readonly plan?: boolean;
  readonly local?: boolean;
}

/** Shown by `weft run --help`; cli.spec.ts runs every one of them. */
export const RUN_EXAMPLES: ReadonlyArray<readonly [string, string]> = [
  ['weft run "fix the failing test"', "this folder's workspace: uploaded the first time, then sent only what changed"],
  ['weft run "fix the failing test" --dir ../api --yes', 'another folder; allow what the agent asks, once each'],
  ['weft run "now add a changelog entry" --session ses_…', 'go on in a session'],
  ['weft run "add OAuth login" --plan', 'a plan, then each subtask in its own loop'],
  ['weft run "rename foo to bar" --local', 'straight to the junior (local) model'],
  ['weft run "list the TODOs" --json --yes', 'the events as JSON lines, for scripts'],
];

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
    .addHelpText('after', runHelp)
    .action(async (task: string, options: RunOptions) => {
      const turnOptions = { ...(options.plan ? { mode: 'plan' as const } : {}), ...(options.local ? { to: 'junior' as const } : {}) };
      const client = await connect(ctx);
      const sessionId = await openSession(ctx, client, options, task.slice(0, 80));
      await followOneTurn(ctx, client, sessionId, { message: task, options: turnOptions }, options);
    });
}

function runHelp(): string {
  const width = Math.max(...RUN_EXAMPLES.map(([example]) => example.length));
  const lines = RUN_EXAMPLES.map(([example, what]) => `  ${example.padEnd(width)}  # ${what}`);
  return [
    '',
    'Examples:',
    ...lines,
    '',
    'Ctrl-C cancels the turn (a second one leaves without waiting). Without a terminal or with --json,',
    'a permission question cancels the turn unless --yes is given. After a turn that changed files,',
    '`weft apply` writes them into the folder the workspace was uploaded from. In a folder uploaded before,',
    'the next run sends only what changed to that workspace (the folder wins); --new-workspace uploads anew.',
  ].join('\n');
}

/**
 * Starts one turn and streams it to the end: permission questions asked at a terminal (all
 * allowed once with `--yes`; where no one can answer, the first one cancels the turn), exit code 1
 * when the turn fails, 130 when Ctrl-C cancelled it or left it.
 */
export async function followOneTurn(ctx: CliContext, client: ApiClient, sessionId: string, start: TurnStart, options: OneTurnOptions): Promise<void> {
  const renderer = new TurnRenderer(ctx.stdout, outColors(ctx), answerMarkdown(ctx, options.raw));
  const interrupts = new TurnInterrupts();
  const interrupt = (): void => {
    if (interrupts.press() === 'cancel') status(ctx, 'cancelling the turn… (Ctrl-C again to leave without waiting)');
  };
  const stopListening = ctx.onInterrupt(interrupt);
  const terminal = Boolean(ctx.stdin.isTTY) && !options.json;
  const rl = terminal && !options.yes ? createInterface({ input: ctx.stdin, output: ctx.stdout as NodeJS.WritableStream }) : undefined;
  rl?.on('SIGINT', interrupt); // a terminal in raw mode delivers Ctrl-C here, not as a signal
  const askPermission: TurnDeps['askPermission'] = options.yes
    ? allowEverythingOnce
    : rl
      ? terminalPermissionPrompt(ctx.stdout, outColors(ctx), (prompt, signal) => rl.question(prompt, { signal }), rl.terminal ? singleKeyAnswers(rl, ctx.stdin) : undefined)
      : refuseUnattended(options.json ? '--json does not ask' : 'input is not a terminal');
  const control = interrupts.beginTurn();
  try {
    const outcome = await runTurn(
      {
        client,
        renderer,
        jsonOut: options.json ? ctx.stdout : undefined,
        onReconnect: (attempt) => status(ctx, `event stream dropped; reconnecting (${attempt})…`),
        onCancelFailed: (error) => ctx.stderr.write(`${errColors(ctx).red(`could not cancel the turn: ${describeError(error)}`)} (Ctrl-C again to leave)\n`),
        askPermission,
        askerShowsRequest: !options.yes && rl !== undefined,
      },
      sessionId,
      start,
      control,
    );
    if (outcome.status === 'failed') ctx.exitCode = 1;
    if (outcome.status === 'cancelled') ctx.exitCode = interrupts.cancelRequested ? 130 : 1;
    if (outcome.touchedFiles) await reportChanges(ctx, client, sessionId, outcome.workspaceId);
  } catch (error) {
    if (!control.leave?.aborted) throw error;
    renderer.endLine();
    ctx.stderr.write(`${errColors(ctx).yellow('left')}: ${interrupts.cancelRequested ? 'the turn is being cancelled' : 'the turn goes on'} in the session\n`);
    ctx.exitCode = 130;
  } finally {
    interrupts.endTurn();
    rl?.close();
    stopListening();
    status(ctx, `session ${sessionId} · continue with: weft chat --session ${sessionId}`);
  }
}
