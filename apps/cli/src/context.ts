import { AdminClient } from './admin-client';
import { ApiClient } from './api-client';
import { ConfigStore, normalizeUrl, resolveCredentials, resolveGatewayUrl, type CliEnv } from './config-store';
import { UsageError } from './errors';
import { type MarkdownToTerminal, terminalMarkdown } from './markdown';
import { colorsFor, type Colors } from './render';

export interface TerminalStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  /** The terminal's width, where it is one. */
  readonly columns?: number;
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

/** Answers' Markdown rendered for the terminal; none (as written) with `--raw` or where stdout is not a terminal. */
export function answerMarkdown(ctx: CliContext, raw: boolean | undefined): MarkdownToTerminal | undefined {
  return ctx.stdout.isTTY && !raw ? terminalMarkdown(ctx.stdout.columns, !ctx.env.NO_COLOR) : undefined;
}

/** Status lines go to stderr, so stdout carries only the answer (or JSONL). */
export function status(ctx: CliContext, text: string): void {
  ctx.stderr.write(`${errColors(ctx).dim(text)}\n`);
}

export async function connect(ctx: CliContext): Promise<ApiClient> {
  const { url, key } = await resolveCredentials(new ConfigStore(ctx.env), ctx.env);
  return new ApiClient(url, key);
}

/** `weft admin`'s own options; each falls back to the environment (and the URL to the saved login). */
export interface AdminTarget {
  readonly adminToken?: string;
  readonly url?: string;
}

/**
 * The admin credential: `--admin-token`, WEFT_ADMIN_TOKEN (the bootstrap token or an admin user's
 * key), then the user's own key (WEFT_KEY, or the saved one when saved for this gateway).
 */
export async function connectAdmin(ctx: CliContext, target: AdminTarget): Promise<AdminClient> {
  const store = new ConfigStore(ctx.env);
  const url = await resolveGatewayUrl(store, ctx.env, target.url);
  const saved = target.adminToken || ctx.env.WEFT_ADMIN_TOKEN || ctx.env.WEFT_KEY ? undefined : await store.load();
  const token = target.adminToken || ctx.env.WEFT_ADMIN_TOKEN || ctx.env.WEFT_KEY || (saved && normalizeUrl(saved.url) === url ? saved.key : undefined);
  if (!token) throw new UsageError("no admin token: pass --admin-token <token> or set WEFT_ADMIN_TOKEN, or log in with an admin user's key (`weft login`)");
  return new AdminClient(url, token);
}
