import type { TerminalStream } from '../context';
import type { Colors } from '../render';
import type { CheckResult, CheckStatus } from './setup-report';

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const SPINNER_INTERVAL_MS = 80;
const CLEAR_LINE = '\r\u001b[2K';

/**
 * One line per check: `✓`, `!`, `✗` or `–` and what was found. At a terminal a spinner stands on
 * the line while a check runs; elsewhere (a pipe, a log) only the outcome is written.
 */
export class CheckReporter {
  constructor(
    private readonly out: TerminalStream,
    private readonly c: Colors,
  ) {}

  /** Runs `work` with `label` on a spinning line, which is cleared once it settles either way. */
  async during<T>(label: string, work: () => Promise<T>): Promise<T> {
    if (!this.out.isTTY) return work();
    let frame = 0;
    const draw = () => this.out.write(`${CLEAR_LINE}${this.c.cyan(SPINNER_FRAMES[frame++ % SPINNER_FRAMES.length] ?? '…')} ${label}…`);
    draw();
    const timer = setInterval(draw, SPINNER_INTERVAL_MS);
    try {
      return await work();
    } finally {
      clearInterval(timer);
      this.out.write(CLEAR_LINE);
    }
  }

  line(result: CheckResult): void {
    this.out.write(`${this.marker(result.status)} ${result.text}\n`);
  }

  /** Indented under the check it belongs to. */
  detail(text: string): void {
    this.out.write(`    ${this.c.dim(text)}\n`);
  }

  note(text: string): void {
    this.out.write(`${this.c.dim(text)}\n`);
  }

  summary(lines: readonly string[], failed: boolean): void {
    const [head = '', ...rest] = lines;
    this.out.write(`\n${this.c.bold(failed ? this.c.red(head) : this.c.green(head))}\n`);
    for (const line of rest) this.out.write(`${line}\n`);
  }

  private marker(status: CheckStatus): string {
    switch (status) {
      case 'pass':
        return this.c.green('✓');
      case 'warn':
        return this.c.yellow('!');
      case 'fail':
        return this.c.red('✗');
      case 'skip':
        return this.c.dim('–');
    }
  }
}
