import { createInterface, type Interface } from 'node:readline/promises';
import { Writable } from 'node:stream';
import type { CliContext, TerminalStream } from '../context';
import { LineReader } from '../line-reader';
import type { Colors } from '../render';
import { CliError } from '../errors';

/** Ctrl-C at a question: `weft setup` stops and exits 130. */
export class SetupInterruptedError extends CliError {
  readonly code = undefined;

  constructor() {
    super('setup stopped (Ctrl-C)');
    this.name = 'SetupInterruptedError';
  }
}

export interface AskOptions {
  /** Shown in brackets and taken when the answer is empty. */
  readonly default?: string;
  /** Typing is not echoed (at a terminal): for the admin token. */
  readonly secret?: boolean;
}

/** Questions on stderr, answers from stdin; undefined when input has ended (a pipe, Ctrl-D). */
export interface Prompter {
  ask(question: string, options?: AskOptions): Promise<string | undefined>;
  /** Only `y` or `yes` is a yes; input that has ended is a no. */
  confirm(question: string): Promise<boolean>;
  close(): void;
}

/** Forwards readline's echo to the terminal, except while a secret is typed. */
class MutableOutput extends Writable {
  muted = false;

  constructor(private readonly target: TerminalStream) {
    super();
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (!this.muted) this.target.write(chunk.toString());
    done();
  }
}

/**
 * One readline interface for every question, opened at the first one: answers piped in ahead
 * (`printf 'y\n…' | weft setup`) are read in order rather than lost between interfaces.
 */
export class TerminalPrompter implements Prompter {
  private rl?: Interface;
  private lines?: LineReader;
  private readonly output: MutableOutput;
  private interrupted = false;
  /** Input ended (or Ctrl-C): readline prompts no more. */
  private closed = false;

  constructor(
    private readonly ctx: CliContext,
    private readonly c: Colors,
  ) {
    this.output = new MutableOutput(ctx.stderr);
  }

  async ask(question: string, options: AskOptions = {}): Promise<string | undefined> {
    const { rl, lines } = this.open();
    const fallback = options.default ? ` ${this.c.dim(`[${options.default}]`)}` : '';
    const prompt = `${this.c.yellow('?')} ${question}${fallback} `;
    if (this.interrupted) throw new SetupInterruptedError();
    if (this.closed) {
      // Input has ended, but lines piped in ahead may still be waiting in the reader.
      this.ctx.stderr.write(prompt);
    } else {
      // readline's own prompt, so a line it redraws (a backspace at a terminal) keeps the question.
      rl.setPrompt(prompt);
      rl.prompt();
    }
    this.output.muted = Boolean(options.secret);
    let answer: string | undefined;
    try {
      answer = await lines.next();
    } finally {
      if (this.output.muted && this.ctx.stdin.isTTY) this.ctx.stderr.write('\n'); // the Enter that was not echoed
      this.output.muted = false;
    }
    if (this.interrupted) throw new SetupInterruptedError();
    if (answer === undefined) {
      this.ctx.stderr.write('\n');
      return undefined;
    }
    return answer.trim() || options.default || '';
  }

  async confirm(question: string): Promise<boolean> {
    const answer = await this.ask(`${question} ${this.c.dim('[y/N]')}`);
    return answer !== undefined && /^y(es)?$/i.test(answer);
  }

  close(): void {
    this.rl?.close();
  }

  private open(): { rl: Interface; lines: LineReader } {
    if (this.rl && this.lines) return { rl: this.rl, lines: this.lines };
    const terminal = Boolean(this.ctx.stdin.isTTY);
    const rl = createInterface({ input: this.ctx.stdin, output: this.output, terminal });
    rl.once('close', () => (this.closed = true));
    // A raw-mode terminal delivers Ctrl-C here, not as a signal.
    rl.on('SIGINT', () => {
      this.interrupted = true;
      rl.close();
    });
    this.rl = rl;
    this.lines = new LineReader(rl[Symbol.asyncIterator]());
    return { rl, lines: this.lines };
  }
}
