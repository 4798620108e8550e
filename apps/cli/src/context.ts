import { ApiClient } from './api-client';
import { ConfigStore, resolveCredentials, type CliEnv } from './config-store';
import { colorsFor, type Colors } from './render';

export interface TerminalStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

/** Everything a command touches outside itself, handed in once by `main` (and by tests). */
export interface CliContext {
  readonly env: CliEnv;
  readonly cwd: string;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly stdout: TerminalStream;
  readonly stderr: TerminalStream;
  /** Calls `handler` on SIGINT until the returned function is called. */
  readonly onInterrupt: (handler: () => void) => () => void;
  exitCode: number;
}

export function outColors(ctx: CliContext): Colors {
  return colorsFor(ctx.stdout, ctx.env);
}

export function errColors(ctx: CliContext): Colors {
  return colorsFor(ctx.stderr, ctx.env);
}

/** Status lines go to stderr, so stdout carries only the answer (or JSONL). */
export function status(ctx: CliContext, text: string): void {
  ctx.stderr.write(`${errColors(ctx).dim(text)}\n`);
}

export async function connect(ctx: CliContext): Promise<ApiClient> {
  const { url, key } = await resolveCredentials(new ConfigStore(ctx.env), ctx.env);
  return new ApiClient(url, key);
}
