import { assertUnreachable, type StoredSessionEvent } from '@weft/contracts';
import { createColors } from 'picocolors';
import { HeldTextPreview, isTerminalOutput } from './live-preview';
import { MarkdownStream, type MarkdownToTerminal } from './markdown';
import type { KeptResult, ToolResults } from './tool-results';

export type Colors = ReturnType<typeof createColors>;

/** Named limits of what a tool call shows; the full text stays in the session log. */
export const MAX_ARGS_CHARS = 120;
export const MAX_ARG_VALUE_CHARS = 40;
export const MAX_RESULT_LINES = 4;
export const MAX_RESULT_LINE_CHARS = 160;

export interface Output {
  write(text: string): unknown;
}

export function colorsFor(stream: { isTTY?: boolean }, env: { NO_COLOR?: string }): Colors {
  return createColors(Boolean(stream.isTTY) && !env.NO_COLOR);
}

/**
 * Turns session events into terminal output: streamed text as it arrives (rendered from Markdown
 * a block at a time when given a renderer, the block being received shown raw until then, else
 * as the model wrote it), each tool call on its
 * own line with compact arguments, the first lines of its result, and a closing summary.
 */
export class TurnRenderer {
  private atLineStart = true;
  private streamedText = false;
  /** The call whose live output is being shown, and whether its last chunk ended mid-line. */
  private liveCall?: string;
  private liveMidLine = false;
  private markdownStream?: MarkdownStream;
  /** At a terminal, the block being received, shown before it is rendered whole. */
  private readonly preview?: HeldTextPreview;

  /** The call each running tool was made with, to name it beside its kept result. */
  private readonly calls = new Map<string, string>();

  constructor(
    private readonly out: Output,
    private readonly c: Colors,
    private readonly markdown?: MarkdownToTerminal,
    /** Where a chat keeps whole results: a cut one then says how to open it. */
    private readonly results?: ToolResults,
  ) {
    if (markdown) this.markdownStream = new MarkdownStream(markdown);
    if (markdown && isTerminalOutput(out)) this.preview = new HeldTextPreview(out, c.dim);
  }

  render(event: StoredSessionEvent): void {
    switch (event.type) {
      case 'message.created':
      case 'turn.started':
        return; // the user typed the message; the model is named in the summary
      case 'message.delta':
        this.streamedText = true;
        return this.text(event.text);
      case 'message.resync':
        // Printed text cannot be taken back: say so and print the whole text once more.
        this.preview?.clear();
        if (this.markdown) this.markdownStream = new MarkdownStream(this.markdown); // its held part comes again
        this.endLine();
        this.line(this.c.yellow('↻ part of the streamed text was lost on the way; the whole text:'));
        this.streamedText = true;
        return this.text(event.text);
      case 'message.completed':
        // A gateway that does not stream deltas still gets its answer shown.
        if (!this.streamedText && event.content) this.text(event.content);
        this.streamedText = false;
        return this.endLine();
      case 'tool.called': {
        this.streamedText = false;
        this.endLine();
        const call = `${event.call.name}(${compactArgs(event.call.arguments)})`;
        this.calls.set(event.call.id, call);
        return this.line(`${this.c.cyan('●')} ${this.c.bold(event.call.name)}${this.c.dim(`(${compactArgs(event.call.arguments)})`)}`);
      }
      case 'tool.output':
        return this.liveOutput(event.callId, event.text);
      case 'tool.completed': {
        const number = this.results?.add(this.calls.get(event.callId) ?? event.name, event.output, event.isError);
        this.calls.delete(event.callId);
        if (this.liveCall === event.callId) {
          // The output was shown as it came: only the result's first line (the exit code) is new.
          this.endLiveOutput();
          return this.toolResult(event.output.split('\n', 1)[0] ?? '', event.isError);
        }
        return this.toolResult(event.output, event.isError, number);
      }
      case 'turn.completed': {
        this.endLine();
        const { promptTokens, completionTokens, cachedTokens } = event.usage;
        const steps = `${event.iterations} step${event.iterations === 1 ? '' : 's'}`;
        const cached = cachedTokens === undefined ? '' : ` (${cachedTokens} cached)`;
        return this.line(this.c.dim(`✓ done · ${steps} · ${promptTokens} prompt${cached} + ${completionTokens} completion tokens`));
      }
      case 'turn.failed':
        this.endLine();
        return this.line(this.c.red(`✗ turn failed: ${event.message} (${event.code})`));
      case 'permission.requested':
        this.endLine();
        return this.line(this.c.yellow(`? permission needed for ${event.subject} (request ${event.requestId}): ${event.reasons.join('; ')}`));
      case 'permission.decided':
        if (event.decidedBy === 'policy' && event.decision === 'allow') return;
        return this.line(this.c.dim(`  ${describeDecision(event)}`));
      case 'turn.interrupted':
        this.endLine();
        return this.line(this.c.yellow(`! interrupted: ${event.message}`));
      case 'turn.cancelled':
        this.endLine();
        return this.line(this.c.red('✗ turn cancelled'));
      case 'context.compacted':
        this.endLine();
        return this.line(
          this.c.dim(`↻ context compacted: ${event.summarisedMessages} older messages summarised for the model (~${event.tokensBefore} → ~${event.tokensAfter} of ${event.contextSize} tokens)`),
        );
      case 'plan.created':
        this.endLine();
        this.line(this.c.bold('▸ plan'));
        event.plan.trim().split('\n').forEach((line) => this.line(this.c.dim(`  ${line}`)));
        return event.subtasks.forEach((subtask, i) => this.line(`  ${i + 1}. ${subtask.title}`));
      case 'subtask.started':
        this.streamedText = false;
        this.endLine();
        return this.line(this.c.bold(`▸ subtask ${event.index}/${event.total}: ${event.title}`));
      case 'subtask.completed':
        this.streamedText = false;
        this.endLine();
        return this.line(
          event.status === 'completed'
            ? this.c.green(`✓ subtask ${event.index}/${event.total} done`)
            : this.c.yellow(`! subtask ${event.index}/${event.total} stopped early`),
        );
      case 'delegation.started':
        this.streamedText = false;
        this.endLine();
        return this.line(this.c.magenta(`⇢ ${event.from} hands to ${event.to}: ${truncate(event.task, MAX_RESULT_LINE_CHARS)}`));
      case 'delegation.completed':
        this.streamedText = false;
        this.endLine();
        return this.line(this.c.magenta(`⇠ ${event.to} reports back to ${event.from} for review (${event.status})`));
      case 'note.saved':
        this.endLine();
        return this.line(this.c.dim(`✎ noted: ${truncate(event.text, MAX_RESULT_LINE_CHARS)}`));
      case 'chain.step.started':
        this.streamedText = false;
        this.endLine();
        return this.line(this.c.bold(`▸ ${event.chain} step ${event.index}/${event.total}: ${event.step} (${event.kind})`));
      case 'chain.step.completed':
        this.streamedText = false;
        this.endLine();
        return this.line(event.isError ? this.c.red(`✗ step ${event.step} failed`) : this.c.dim(`✓ step ${event.step}`));
      case 'model.loading':
        this.endLine();
        return this.line(this.c.dim(`⧗ loading ${event.model} on the worker: ${Math.round(event.progress * 100)} %`));
      case 'generation.resumed':
        // Said between two rows of the reply: the held part's preview is drawn again below it.
        this.preview?.clear();
        this.endLine();
        this.line(this.c.dim(`↻ the inference worker was lost; ${event.model} goes on from where it stopped`));
        return this.preview?.show(this.markdownStream?.held ?? '');
      case 'mcp.server.unavailable':
        this.endLine();
        return this.line(this.c.yellow(`! MCP server ${event.server} (${event.scope}) is ${event.state}: ${truncate(event.problem, MAX_RESULT_LINE_CHARS)}`));
      default:
        return assertUnreachable(event);
    }
  }

  /** A long run's output as it comes, dimmed and indented under its call. */
  private liveOutput(callId: string, text: string): void {
    if (this.liveCall !== callId) {
      this.endLiveOutput();
      this.endLine();
      this.liveCall = callId;
    }
    const lines = text.split('\n');
    lines.forEach((line, index) => {
      const last = index === lines.length - 1;
      if (last && line === '') return;
      const prefix = this.liveMidLine ? '' : '    │ ';
      this.out.write(this.c.dim(`${prefix}${line}`) + (last ? '' : '\n'));
      this.liveMidLine = last;
    });
    this.atLineStart = !this.liveMidLine;
  }

  private endLiveOutput(): void {
    if (this.liveMidLine) this.out.write('\n');
    this.liveMidLine = false;
    this.atLineStart = true;
  }

  /** Ends a half-written line, e.g. before a prompt after Ctrl-C; Markdown held back is rendered first. */
  endLine(): void {
    this.preview?.clear();
    const held = this.markdownStream?.flush();
    if (held) this.write(held);
    if (!this.atLineStart) this.line('');
  }

  /**
   * A result's first lines; a failed one's first line (the exit code) and its last lines, where
   * the cause is (a pip or compiler error ends its output). `number`: how a chat opens it whole.
   */
  private toolResult(output: string, isError: boolean, number?: number): void {
    const lines = output.replace(/\s+$/, '').split('\n');
    const cut = lines.length > MAX_RESULT_LINES;
    const head = isError && cut ? lines.slice(0, 1) : lines.slice(0, MAX_RESULT_LINES);
    const tail = isError && cut ? lines.slice(-(MAX_RESULT_LINES - 1)) : [];
    const paint = isError ? this.c.red : this.c.dim;
    const show = (line: string, first: boolean) => this.line(paint(`${first ? '  ⎿ ' : '    '}${truncate(line, MAX_RESULT_LINE_CHARS)}`));
    if (head.length === 0 || (head.length === 1 && head[0] === '' && tail.length === 0)) return show('(no output)', true);
    head.forEach((line, index) => show(line, index === 0));
    const hidden = lines.length - head.length - tail.length;
    const open = number === undefined ? '' : ` · /expand or /tool ${number} shows it whole`;
    if (hidden > 0) this.line(this.c.dim(`    … ${hidden} ${tail.length > 0 ? 'earlier ' : 'more '}line${hidden === 1 ? '' : 's'}${open}`));
    tail.forEach((line) => show(line, false));
  }

  /** A kept result, whole (`/expand`, `/tool N`). */
  showResult(result: KeptResult): void {
    this.endLine();
    this.line(`${this.c.cyan(`[${result.number}]`)} ${this.c.bold(result.call)}`);
    const paint = result.isError ? this.c.red : (text: string) => text;
    for (const line of result.output.replace(/\s+$/, '').split('\n')) this.line(paint(`    ${line}`));
  }

  private text(text: string): void {
    if (!this.markdownStream) return this.write(text);
    const rendered = this.markdownStream.push(text);
    if (rendered) {
      this.preview?.clear();
      this.write(rendered);
    }
    this.preview?.show(this.markdownStream.held);
  }

  private write(text: string): void {
    if (!text) return;
    this.out.write(text);
    this.atLineStart = text.endsWith('\n');
  }

  private line(text: string): void {
    this.out.write(`${text}\n`);
    this.atLineStart = true;
  }
}

type PermissionDecided = Extract<StoredSessionEvent, { type: 'permission.decided' }>;

/** Where `allow_always` keeps its rules, as the person who answered reads it. */
const RULE_HOMES: Readonly<Record<string, string>> = { session: 'this session', workspace: 'this workspace', user: 'all your sessions' };

/** Who decided and, for `a`, where the rules went: `allowed by you · Write(a.txt) now allowed in this session`. */
export function describeDecision(event: PermissionDecided): string {
  const verb = event.decision === 'allow' ? 'allowed' : 'denied';
  const reason = event.reason ? `: ${event.reason}` : '';
  switch (event.decidedBy) {
    case 'user': {
      const rules = event.storedRules ?? [];
      const home = RULE_HOMES[event.scope ?? ''] ?? `the ${event.scope ?? 'session'} rules`;
      return `${verb} by you${rules.length > 0 ? ` · ${rules.join(', ')} now allowed in ${home}` : ''}${reason}`;
    }
    case 'policy':
      return `${verb} by ${event.rule ? `the rule ${event.rule}${event.scope ? ` (${event.scope} rules)` : ''}` : 'the policy'}${reason}`;
    case 'timeout':
      return `${verb}: nobody answered in time${reason}`;
    case 'cancel':
      return `${verb}: the turn was cancelled${reason}`;
    default:
      return assertUnreachable(event.decidedBy);
  }
}

/** `path="src/a.ts", limit=20`: strings quoted and cut, the whole kept under MAX_ARGS_CHARS. */
export function compactArgs(args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([key, value]) => {
    const shown = typeof value === 'string' ? JSON.stringify(truncate(value, MAX_ARG_VALUE_CHARS)) : JSON.stringify(value);
    return `${key}=${truncate(shown ?? String(value), MAX_ARG_VALUE_CHARS + 2)}`;
  });
  return truncate(parts.join(', '), MAX_ARGS_CHARS);
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s*\n\s*/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
