import type { PermissionAnswer } from './api-client';
import { previewCall } from './call-preview';
import type { Colors } from './render';
import type { PermissionRequest } from './turn';
import type { TerminalStream } from './context';
import { UnattendedPermissionError } from './errors';

/**
 * Shows `prompt` and reads one line of the user's answer; undefined when input has ended; rejects
 * when `signal` aborts. The reader shows the prompt itself: a terminal readline redraws its line
 * when it asks, and would wipe a prompt written before.
 */
export type ReadAnswer = (prompt: string, signal: AbortSignal) => Promise<string | undefined>;

const ANSWERS: Readonly<Record<string, PermissionAnswer['decision']>> = {
  y: 'allow_once',
  yes: 'allow_once',
  a: 'allow_always',
  always: 'allow_always',
  n: 'deny',
  no: 'deny',
};

/**
 * Asks at the terminal whether the agent may go ahead, showing the exact call (and the diff an
 * edit would make, or what a write would write); `y` allows it
 * once, `a` always (the suggested rules, for this session), `n` denies it with an optional reason.
 */
export function terminalPermissionPrompt(out: TerminalStream, c: Colors, readAnswer: ReadAnswer) {
  return async (event: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer | undefined> => {
    const always = event.suggestedRules.length > 0 ? ` · ${c.bold('a')} always (${event.suggestedRules.join(', ')})` : '';
    out.write(`${c.yellow('?')} allow ${c.bold(event.call.name)}: ${event.subject}\n`);
    for (const line of previewCall(event.call)) {
      const paint = line.startsWith('+') ? c.green : line.startsWith('-') ? c.red : c.dim;
      out.write(`    ${paint(line)}\n`);
    }
    // Why it asks, and what a script-running command would really run (the package.json script).
    for (const reason of event.reasons) out.write(`    ${c.dim(`(${reason})`)}\n`);
    for (;;) {
      const prompt = `  ${c.bold('y')} once${always} · ${c.bold('n')} no [y/${always ? 'a/' : ''}n] `;
      const line = await readAnswer(prompt, signal).catch((error: unknown) => {
        if (signal.aborted) out.write('\n'); // the turn is going: end the unanswered prompt's line
        throw error;
      });
      if (line === undefined) return undefined;
      const [word = '', ...rest] = line.trim().split(/\s+/);
      const decision = ANSWERS[word.toLowerCase()];
      if (decision === 'allow_always' && !always) continue;
      if (decision === 'deny') return { decision, reason: rest.join(' ') || undefined };
      if (decision) return { decision };
    }
  };
}

/** For `--yes`: every question is allowed once, without asking. */
export async function allowEverythingOnce(): Promise<PermissionAnswer> {
  return { decision: 'allow_once' };
}

/** For `weft run` where no one can answer (no terminal, or `--json`) and no `--yes`: fails the turn at the first question. */
export function refuseUnattended(why: string) {
  return async (event: PermissionRequest): Promise<PermissionAnswer> => {
    throw new UnattendedPermissionError(event.call.name, event.subject, why);
  };
}
