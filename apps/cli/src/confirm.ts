import { createInterface } from 'node:readline/promises';
import type { CliContext } from './context';

/**
 * Asks a yes/no question on stderr and reads the answer from stdin (a terminal or a pipe); only
 * `y` or `yes` is a yes, and input that has ended is a no.
 */
export async function confirm(ctx: CliContext, question: string): Promise<boolean> {
  const rl = createInterface({ input: ctx.stdin, output: ctx.stderr as NodeJS.WritableStream, terminal: Boolean(ctx.stdin.isTTY) });
  const ended = new Promise<undefined>((resolve) => rl.once('close', () => resolve(undefined)));
  try {
    const answer = await Promise.race([rl.question(`${question} [y/N] `), ended]);
    return answer !== undefined && /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}
