import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { quote } from 'shell-quote';

const run = promisify(execFile);

/** A program running in a real terminal (a tmux pane) that a test types into and reads back. */
export interface TmuxPane {
  /** What the pane shows now, trailing blanks trimmed from each line; with `escapes`, its colours as escape sequences. */
  screen(options?: { escapes?: boolean }): Promise<string>;
  /** Types `text` and presses Enter. */
  typeLine(text: string): Promise<void>;
  /** Presses keys by tmux's names (`BSpace`, `C-c`). */
  press(...keys: string[]): Promise<void>;
  /** Ends the pane's tmux server (and the program, if it still runs). */
  close(): Promise<void>;
}

/**
 * Starts `argv` in a detached tmux pane of its own server (`-L`, so tests never meet a user's
 * tmux), with only `env` set. The pane stays after the program exits, its last line `[exit N]`.
 */
export async function startInTmux(argv: string[], env: Record<string, string>, cwd: string): Promise<TmuxPane> {
  const socket = `weft-test-${randomBytes(4).toString('hex')}`;
  // Only the pane starts in `cwd`: a test may remove that folder before the pane is closed.
  const tmux = (...args: string[]) => run('tmux', ['-L', socket, '-f', '/dev/null', ...args]);
  const environment = Object.entries({ PATH: process.env.PATH ?? '', TERM: 'xterm-256color', ...env }).map(([k, v]) => `${k}=${v}`);
  const shell = `${quote(['env', '-i', ...environment, ...argv])}; echo "[exit $?]"; exec sleep 600`;
  await tmux('new-session', '-d', '-s', 'weft', '-x', '160', '-y', '50', '-c', cwd, 'bash', '-c', shell);
  return {
    screen: async (options = {}) => (await tmux('capture-pane', '-p', ...(options.escapes ? ['-e'] : []), '-t', 'weft')).stdout.replace(/[ \t]+$/gm, ''),
    typeLine: async (text) => {
      await tmux('send-keys', '-t', 'weft', '-l', text);
      await tmux('send-keys', '-t', 'weft', 'Enter');
    },
    press: async (...keys) => {
      await tmux('send-keys', '-t', 'weft', ...keys);
    },
    close: async () => {
      await tmux('kill-server').catch(() => undefined); // already gone with its last pane
    },
  };
}
