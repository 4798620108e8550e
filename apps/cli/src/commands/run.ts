import { createInterface } from 'node:readline/promises';
import { Command } from 'commander';
import type { ApiClient } from '../api-client';
import { reportChanges } from '../changes-hint';
import { answerMarkdown, connect, errColors, outColors, status, type CliContext } from '../context';
import { describeError, UnattendedPermissionError } from '../errors';
import { ExitCode } from '../exit-codes';
import { addSessionRules, collectRule, type ResultStatus, type RunResult, TurnSummary, workspaceChanges } from '../headless';
import { allowEverythingOnce, refuseUnattended, singleKeyAnswers, terminalPermissionPrompt } from '../permission-prompt';
import { TurnRenderer } from '../render';
import { openSession, type SessionTargetOptions } from '../session-target';
import { type TurnDeps, type TurnOutcome, type TurnStart, runTurn } from '../turn';
import { TurnInterrupts } from '../turn-interrupts';
import { withTargetOptions } from './target-options';

export interface OneTurnOptions extends SessionTargetOptions {
  readonly json?: boolean;
  readonly yes?: boolean;
  /** Rules added to the session before the turn: what they match is allowed (denied) without asking. */
  readonly allow?: string[];
  readonly deny?: string[];
  /** Where to write the workspace's patch after the turn, for a script. */
  readonly patch?: string;
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
  ["weft run \"fix the tests\" --json --allow 'Bash(pytest*)' --allow 'Edit(src/**)' --patch fix.patch", 'headless, for CI: rules answer, the patch to a file'],
];

/** `--json` and `--yes`: shared by `run` and `chain`. */
export function withOneTurnOptions(command: Command): Command {
  return withTargetOptions(command)
    .option('--json', 'print the raw session events as JSON lines, then a last line {"type":"weft.result",…} with the outcome')
    .option('-y, --yes', 'allow every action the agent asks permission for, once each, without asking')
    .option('--allow <rule>', "add a rule to the session's allow list before the turn, e.g. 'Bash(pytest*)' (repeatable)", collectRule, [])
    .option('--deny <rule>', "add a rule to the session's deny list before the turn, e.g. 'Bash(git push*)' (repeatable)", collectRule, [])
    .option('--patch <file>', "write the workspace's patch to this file after a turn that changed files");
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
  await addSessionRules(client, sessionId, { allow: options.allow ?? [], deny: options.deny ?? [] });
  const summary = new TurnSummary();
  let outcome: TurnOutcome | undefined;
  let failure: unknown;
  try {
    outcome = await followTurn(ctx, client, sessionId, start, options, summary);
  } catch (error) {
    failure = error;
  }
  if (options.json || options.patch) await finish(ctx, client, sessionId, options, summary, outcome, failure);
  if (failure !== undefined) throw failure;
}

/** The `--patch` file, and with `--json` the result line: written whatever the outcome. */
async function finish(ctx: CliContext, client: ApiClient, sessionId: string, options: OneTurnOptions, summary: TurnSummary, outcome: TurnOutcome | undefined, failure: unknown): Promise<void> {
  const changes = outcome ? await workspaceChanges(client, outcome.workspaceId, options.patch) : { filesChanged: [], patch: null };
  if (!options.json) return;
  const status: ResultStatus = failure instanceof UnattendedPermissionError ? 'approval_needed' : ctx.exitCode === ExitCode.Interrupted ? 'interrupted' : (outcome?.status ?? 'failed');
  const exitCode = failure instanceof UnattendedPermissionError ? ExitCode.ApprovalNeeded : failure !== undefined ? ExitCode.Failed : ctx.exitCode;
  const result: RunResult = {
    type: 'weft.result',
    status,
    exitCode,
    sessionId,
    turnId: outcome?.turnId ?? null,
    workspaceId: outcome?.workspaceId ?? null,
    answer: summary.answer,
    usage: summary.usage,
    error: outcome?.status === 'failed' ? { code: outcome.code, message: outcome.message } : failure instanceof Error ? { code: (failure as { code?: string }).code ?? null, message: failure.message } : null,
    ...changes,
  };
  ctx.stdout.write(`${JSON.stringify(result)}\n`);
}

async function followTurn(ctx: CliContext, client: ApiClient, sessionId: string, start: TurnStart, options: OneTurnOptions, summary: TurnSummary): Promise<TurnOutcome | undefined> {
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
        onEvent: (event) => summary.observe(event),
      },
      sessionId,
      start,
      control,
    );
    if (outcome.status === 'failed') ctx.exitCode = ExitCode.Failed;
    if (outcome.status === 'cancelled') ctx.exitCode = interrupts.cancelRequested ? ExitCode.Interrupted : ExitCode.Failed;
    if (outcome.touchedFiles) await reportChanges(ctx, client, sessionId, outcome.workspaceId);
    return outcome;
  } catch (error) {
    if (!control.leave?.aborted) throw error;
    renderer.endLine();
    ctx.stderr.write(`${errColors(ctx).yellow('left')}: ${interrupts.cancelRequested ? 'the turn is being cancelled' : 'the turn goes on'} in the session\n`);
    ctx.exitCode = ExitCode.Interrupted;
    return undefined;
  } finally {
    interrupts.endTurn();
    rl?.close();
    stopListening();
    status(ctx, `session ${sessionId} · continue with: weft chat --session ${sessionId}`);
  }
}
