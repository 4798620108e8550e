import type { ApiClient, ChainListing, ScopeRules, SessionSummary, TurnOptions } from './api-client';
import { parseInputs } from './chain-inputs';
import type { TurnStart } from './turn';
import { ApiError, formatError } from './errors';
import type { Colors, Output, TurnRenderer } from './render';
import type { KeptResult, ToolResults } from './tool-results';

/** What `weft chat` is talking to; the slash commands switch it. */
export interface ChatState {
  sessionId: string;
}

/** `quit` ends the chat; `continue` reads the next line; `start` starts a turn (`/plan`, `/local`, `/chain`). */
export type SlashOutcome = 'quit' | 'continue' | { readonly start: TurnStart };

/** Sessions `/sessions` lists; `GET /v1/sessions` returns them all. */
export const MAX_LISTED_SESSIONS = 20;
export const MAX_PREVIEW_CHARS = 60;

const HELP: ReadonlyArray<readonly [string, string]> = [
  ['/help', 'this list'],
  ['/sessions', 'your sessions, newest first'],
  ['/resume <id>', 'switch to another session'],
  ['/clear', 'start a new session on the same workspace and model'],
  ['/permissions', "the permission rules of this session and your own"],
  ['/plan <task>', 'planning mode: a plan, then each subtask in its own loop'],
  ['/local <task>', 'send the task straight to the junior (local) model'],
  ['/memory', "the workspace's shared notes; /memory add <text>, /memory rm <id>, /memory clear"],
  ['/chains', "the workspace's chains (.weft/chains/*.yaml) and their inputs"],
  ['/chain <name> [key=value …]', 'runs a chain with its inputs'],
  ['/expand', 'the last tool result, whole'],
  ['/tool [N]', 'tool result N whole; without N, the results of this chat'],
  ['/exit, /quit', 'leave (Ctrl-D too, and Ctrl-C when no turn runs; during a turn Ctrl-C cancels it)'],
];

/** `/help`, `/plan do x`; not `/usr/bin/env python3 x.py`, which is a message that starts with a path. */
export function isSlashCommand(line: string): boolean {
  return /^\/[a-z]+(?:\s|$)/i.test(line);
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
    /** The chat's tool results and the renderer that shows one whole; without them, /expand and /tool say so. */
    private readonly results?: { readonly kept: ToolResults; readonly renderer: TurnRenderer },
  ) {}

  async run(line: string): Promise<SlashOutcome> {
    const [name = '', ...args] = line.trim().split(/\s+/);
    const rest = line.trim().slice(name.length).trim();
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
        case '/plan':
          return this.task('/plan', rest, { mode: 'plan' });
        case '/local':
          return this.task('/local', rest, { to: 'junior' });
        case '/memory':
          await this.memory(args[0], rest.slice(args[0]?.length ?? 0).trim());
          break;
        case '/chains':
          await this.chains();
          break;
        case '/chain':
          return this.chain(args[0], rest.slice(args[0]?.length ?? 0).trim());
        case '/expand':
          this.expand(this.results?.kept.last());
          break;
        case '/tool':
          if (args[0] === undefined) this.listResults();
          else this.expand(this.results?.kept.get(Number(args[0])), args[0]);
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

  private expand(result: KeptResult | undefined, asked?: string): void {
    if (result && this.results) return this.results.renderer.showResult(result);
    const none = asked === undefined ? 'no tool result yet in this chat' : `no tool result ${asked} in this chat`;
    this.err.write(`${this.c.yellow(none)}: /tool lists them\n`);
  }

  private listResults(): void {
    const kept = this.results?.kept.all() ?? [];
    if (kept.length === 0) return void this.out.write(this.c.dim('no tool results yet in this chat\n'));
    for (const result of kept) {
      const lines = result.output.replace(/\s+$/, '').split('\n').length;
      const mark = result.isError ? this.c.red(' failed') : '';
      this.out.write(`${this.c.cyan(`[${result.number}]`)} ${result.call}${mark} ${this.c.dim(`(${lines} line${lines === 1 ? '' : 's'})`)}\n`);
    }
  }

  private task(command: string, task: string, options: TurnOptions): SlashOutcome {
    if (task) return { start: { message: task, options } };
    this.err.write(`${this.c.yellow('usage')}: ${command} <task>\n`);
    return 'continue';
  }

  private chain(name: string | undefined, inputs: string): SlashOutcome {
    if (!name) {
      this.err.write(`${this.c.yellow('usage')}: /chain <name> [key=value …] (see /chains)\n`);
      return 'continue';
    }
    return { start: { chain: name, inputs: parseInputs(inputs) } };
  }

  private async chains(): Promise<void> {
    const chains = await this.client.chains(this.state.sessionId);
    if (chains.length === 0) return void this.out.write(this.c.dim('no chains: add .weft/chains/<name>.yaml to the workspace\n'));
    for (const chain of chains) this.out.write(`${this.chainLine(chain)}\n`);
  }

  private chainLine(chain: ChainListing): string {
    if ('error' in chain) return `${this.c.bold(chain.name)}  ${this.c.red(chain.error)}`;
    const inputs = Object.entries(chain.inputs).map(([key, spec]) => (spec.default === undefined ? `${key}=…` : `[${key}=${spec.default}]`));
    const about = chain.description ? `  ${chain.description}` : '';
    return `${this.c.bold(chain.name)} ${inputs.join(' ')}${about}  ${this.c.dim(`(${chain.steps} steps)`)}`;
  }

  private async memory(action: string | undefined, text: string): Promise<void> {
    const { workspaceId } = await this.client.session(this.state.sessionId);
    switch (action?.toLowerCase()) {
      case undefined:
      case 'list': {
        const notes = await this.client.notes(workspaceId);
        if (notes.length === 0) return void this.out.write(this.c.dim('no notes yet: the agent adds them with remember, you with /memory add <text>\n'));
        for (const note of notes) this.out.write(`${this.c.dim(note.id)}  ${note.text}  ${this.c.dim(`(${note.author})`)}\n`);
        return;
      }
      case 'add':
        if (!text) return void this.err.write(`${this.c.yellow('usage')}: /memory add <text>\n`);
        return void this.out.write(this.c.dim(`noted ${(await this.client.addNote(workspaceId, text)).id}\n`));
      case 'rm':
        if (!text) return void this.err.write(`${this.c.yellow('usage')}: /memory rm <note id> (see /memory)\n`);
        await this.client.deleteNote(workspaceId, text);
        return void this.out.write(this.c.dim(`removed ${text}\n`));
      case 'clear':
        return void this.out.write(this.c.dim(`removed ${await this.client.clearNotes(workspaceId)} notes\n`));
      default:
        this.err.write(`${this.c.yellow(`unknown /memory action ${action}`)}: list, add <text>, rm <id> or clear\n`);
    }
  }

  private help(): void {
    const width = Math.max(...HELP.map(([command]) => command.length));
    for (const [command, what] of HELP) this.out.write(`  ${this.c.bold(command.padEnd(width))}  ${what}\n`);
  }

  private async sessions(): Promise<void> {
    const sessions = await this.client.sessions();
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
    const session = await this.client.session(id);
    this.state.sessionId = session.id;
    const count = session.messages.length;
    this.out.write(this.c.dim(`resumed ${session.id} · ${session.model} · ${count} message${count === 1 ? '' : 's'}\n`));
    const last = session.messages.findLast((m) => m.role === 'assistant' && m.content.trim() !== '');
    if (last) this.out.write(`${this.c.dim('last answer:')} ${last.content.trim()}\n`);
  }

  private async clear(): Promise<void> {
    const current = await this.client.session(this.state.sessionId);
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
