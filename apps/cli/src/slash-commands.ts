import type { ApiClient, ScopeRules, SessionSummary } from './api-client';
import { ApiError, formatError } from './errors';
import type { Colors, Output } from './render';

/** What `weft chat` is talking to; the slash commands switch it. */
export interface ChatState {
  sessionId: string;
}

/** `quit` ends the chat; `continue` reads the next line. */
export type SlashOutcome = 'quit' | 'continue';

/** Sessions `/sessions` lists; `GET /v1/sessions` returns them all. */
export const MAX_LISTED_SESSIONS = 20;
export const MAX_PREVIEW_CHARS = 60;

const HELP: ReadonlyArray<readonly [string, string]> = [
  ['/help', 'this list'],
  ['/sessions', 'your sessions, newest first'],
  ['/resume <id>', 'switch to another session'],
  ['/clear', 'start a new session on the same workspace and model'],
  ['/permissions', "the permission rules of this session and your own"],
  ['/exit, /quit', 'leave (Ctrl-D too)'],
];

export function isSlashCommand(line: string): boolean {
  return /^\/[a-z]/i.test(line);
}

/**
 * The chat's slash commands. Output goes to `out`, a failed request to `err`; the chat carries
 * on after either.
 */
export class SlashCommands {
  constructor(
    private readonly client: ApiClient,
    private readonly state: ChatState,
    private readonly out: Output,
    private readonly err: Output,
    private readonly c: Colors,
  ) {}

  async run(line: string): Promise<SlashOutcome> {
    const [name = '', ...args] = line.trim().split(/\s+/);
    try {
      switch (name.toLowerCase()) {
        case '/exit':
        case '/quit':
          return 'quit';
        case '/help':
          this.help();
          break;
        case '/sessions':
          await this.sessions();
          break;
        case '/resume':
          await this.resume(args[0]);
          break;
        case '/clear':
          await this.clear();
          break;
        case '/permissions':
          await this.permissions();
          break;
        default:
          this.err.write(`${this.c.yellow(`unknown command ${name}`)}: /help lists them\n`);
      }
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      this.err.write(`${this.c.red(formatError(error))}\n`);
    }
    return 'continue';
  }

  private help(): void {
    const width = Math.max(...HELP.map(([command]) => command.length));
    for (const [command, what] of HELP) this.out.write(`  ${this.c.bold(command.padEnd(width))}  ${what}\n`);
  }

  private async sessions(): Promise<void> {
    const sessions = await this.client.listSessions();
    if (sessions.length === 0) return void this.out.write(this.c.dim('no sessions yet\n'));
    for (const session of sessions.slice(0, MAX_LISTED_SESSIONS)) this.out.write(`${this.sessionLine(session)}\n`);
    const hidden = sessions.length - MAX_LISTED_SESSIONS;
    if (hidden > 0) this.out.write(this.c.dim(`… ${hidden} older\n`));
  }

  private sessionLine(session: SessionSummary): string {
    const current = session.id === this.state.sessionId;
    const marker = current ? this.c.cyan('●') : ' ';
    const label = session.title ?? session.preview ?? '(empty)';
    const shown = label.length > MAX_PREVIEW_CHARS ? `${label.slice(0, MAX_PREVIEW_CHARS - 1)}…` : label;
    const running = session.activeTurnId ? ' · running' : '';
    return `${marker} ${this.c.bold(session.id)}  ${shown}  ${this.c.dim(`${session.createdAt.slice(0, 16).replace('T', ' ')} · ${session.model}${running}`)}`;
  }

  private async resume(id: string | undefined): Promise<void> {
    if (!id) return void this.err.write(`${this.c.yellow('usage')}: /resume <session id> (see /sessions)\n`);
    const session = await this.client.getSession(id);
    this.state.sessionId = session.id;
    const count = session.messages.length;
    this.out.write(this.c.dim(`resumed ${session.id} · ${session.model} · ${count} message${count === 1 ? '' : 's'}\n`));
    const last = session.messages.findLast((m) => m.role === 'assistant' && m.content.trim() !== '');
    if (last) this.out.write(`${this.c.dim('last answer:')} ${last.content.trim()}\n`);
  }

  private async clear(): Promise<void> {
    const current = await this.client.getSession(this.state.sessionId);
    const id = await this.client.createSession({ workspaceId: current.workspaceId, model: current.model });
    this.state.sessionId = id;
    this.out.write(this.c.dim(`new session ${id} · workspace ${current.workspaceId} · model ${current.model}\n`));
  }

  private async permissions(): Promise<void> {
    const [session, user] = await Promise.all([
      this.client.permissionRules({ scope: 'session', id: this.state.sessionId }),
      this.client.permissionRules({ scope: 'user' }),
    ]);
    this.rules(`session ${this.state.sessionId}`, session);
    this.rules('you (all your sessions)', user);
    this.out.write(this.c.dim('server policy comes first and the workspace may add more; see docs/permissions.md\n'));
  }

  private rules(title: string, { rules }: ScopeRules): void {
    this.out.write(`${this.c.bold(title)}\n`);
    const lists = [
      ['deny', rules.deny],
      ['ask', rules.ask],
      ['allow', rules.allow],
    ] as const;
    if (lists.every(([, list]) => list.length === 0)) return void this.out.write(this.c.dim('  no rules\n'));
    for (const [kind, list] of lists) if (list.length > 0) this.out.write(`  ${kind.padEnd(5)}  ${list.join(', ')}\n`);
  }
}
