import type { Interface } from 'node:readline/promises';
import type { PermissionAnswer } from './api-client';
import { MAX_PREVIEW_LINES, previewCall } from './call-preview';
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
 * Turns a one-letter answer into a whole one without Enter while a question waits: at a
 * terminal, readline reads keys in raw mode, so the key is in its line already and a simulated
 * Enter hands that line to whoever reads it. `arm` returns the function that disarms it.
 */
export interface SingleKeys {
  arm(): () => void;
}

/** Single keys on `rl`'s terminal input: y, a, n and d (show the whole call), typed on an empty line. */
export function singleKeyAnswers(rl: Interface, input: NodeJS.ReadableStream): SingleKeys {
  return {
    arm: () => {
      const onKey = (_text: string | undefined, key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined): void => {
        if (key?.ctrl || key?.meta || !SINGLE_KEYS.has(rl.line)) return;
        rl.write('\n');
      };
      input.on('keypress', onKey);
      return () => input.off('keypress', onKey);
    },
  };
}

const SINGLE_KEYS = new Set(['y', 'a', 'n', 'd']);

/**
 * Asks at the terminal whether the agent may go ahead, showing the exact call once (and the diff
 * an edit would make, or what a write would write); `y` allows it once, `a` always (the suggested
 * rules, for this session), `n` denies it and then asks why (optional, sent to the model), `d`
 * shows the whole call where the preview was cut. With `keys`, one keypress answers.
 */
export function terminalPermissionPrompt(out: TerminalStream, c: Colors, readAnswer: ReadAnswer, keys?: SingleKeys) {
  return async (event: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer | undefined> => {
    const always = event.suggestedRules.length > 0 ? ` · ${c.bold('a')} always (${event.suggestedRules.join(', ')})` : '';
    out.write(`${c.yellow('?')} allow ${c.bold(event.call.name)}: ${event.subject}\n`);
    const preview = (lines: readonly string[]): void => {
      for (const line of lines) {
        const paint = line.startsWith('+') ? c.green : line.startsWith('-') ? c.red : c.dim;
        out.write(`    ${paint(line)}\n`);
      }
    };
    const shown = previewCall(event.call);
    preview(shown);
    // Why it asks, and what a script-running command would really run (the package.json script).
    for (const reason of event.reasons) out.write(`    ${c.dim(`(${reason})`)}\n`);
    const whole = previewCall(event.call, Number.POSITIVE_INFINITY);
    const details = whole.length > MAX_PREVIEW_LINES ? ` · ${c.bold('d')} the whole ${event.call.name === 'edit_file' ? 'diff' : 'call'}` : '';
    const ask = async (prompt: string, armed: boolean): Promise<string | undefined> => {
      const disarm = armed ? keys?.arm() : undefined;
      try {
        return await readAnswer(prompt, signal);
      } catch (error) {
        if (signal.aborted) out.write('\n'); // the turn is going: end the unanswered prompt's line
        throw error;
      } finally {
        disarm?.();
      }
    };
    for (;;) {
      const prompt = `  ${c.bold('y')} once${always} · ${c.bold('n')} no${details} [y/${always ? 'a/' : ''}n${details ? '/d' : ''}] `;
      const line = await ask(prompt, true);
      if (line === undefined) return undefined;
      const [word = '', ...rest] = line.trim().split(/\s+/);
      if (word.toLowerCase() === 'd' && details) {
        preview(whole);
        continue;
      }
      const decision = ANSWERS[word.toLowerCase()];
      if (decision === 'allow_always' && !always) continue;
      if (decision === 'deny') {
        if (rest.length > 0 || !keys) return { decision, reason: rest.join(' ') || undefined };
        const reason = await ask(`  why not? ${c.dim('(optional, for the model; Enter to skip)')} `, false);
        return { decision, reason: reason?.trim() || undefined };
      }
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
