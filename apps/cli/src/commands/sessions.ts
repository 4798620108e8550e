import { Command } from 'commander';
import type { SessionSummary, WorkspaceSummary } from '../api-client';
import { confirm } from '../confirm';
import { connect, outColors, status, type CliContext } from '../context';
import { RefusedError } from '../errors';
import { tableText } from '../table';

/** Titles and first prompts are cut to this in the list. */
export const MAX_TITLE_CHARS = 50;

export function sessionsCommand(ctx: CliContext): Command {
  const sessions = new Command('sessions').description('your sessions: list, rename, delete');
  sessions
    .command('list', { isDefault: true })
    .description('your sessions, most recently active first: id, title (or first prompt), model, workspace, last activity (UTC)')
    .action(async () => {
      const client = await connect(ctx);
      const [list, workspaces] = await Promise.all([client.sessions(), client.workspaces()]);
      const c = outColors(ctx);
      if (list.length === 0) return void ctx.stdout.write(c.dim('no sessions: start one with weft run or weft chat\n'));
      const columns = [{ header: 'id' }, { header: 'title' }, { header: 'model' }, { header: 'workspace' }, { header: 'last activity' }];
      ctx.stdout.write(tableText(columns, sessionRows(list, workspaces), c));
    });
  sessions
    .command('rename')
    .description('give a session a title (shown instead of its first prompt)')
    .argument('<id>', 'the session (ses_…)')
    .argument('<title...>', 'its new title; "" removes it')
    .action(async (id: string, words: string[]) => {
      const title = words.join(' ').trim();
      await (await connect(ctx)).renameSession(id, title === '' ? null : title);
      status(ctx, title === '' ? `removed the title of ${id}` : `renamed ${id} to ${title}`);
    });
  sessions
    .command('delete')
    .description('delete a session: its messages, event log and session rules (refused while a turn runs; its workspace stays)')
    .argument('<id>', 'the session (ses_…)')
    .option('-y, --yes', 'do not ask first')
    .action(async (id: string, options: { yes?: boolean }) => {
      const client = await connect(ctx);
      if (!options.yes) {
        const session = (await client.sessions()).find((s) => s.id === id);
        const label = session ? ` (${labelOf(session)})` : '';
        if (!(await confirm(ctx, `delete session ${id}${label} with its history?`))) throw new RefusedError('not deleted (pass --yes to delete without asking)');
      }
      await client.deleteSession(id);
      status(ctx, `deleted ${id}`);
    });
  return sessions;
}

/** One row per session, most recently active first; a workspace is shown by name, or its id once it is gone. */
export function sessionRows(sessions: readonly SessionSummary[], workspaces: readonly WorkspaceSummary[]): string[][] {
  const names = new Map(workspaces.map((w) => [w.id, w.name]));
  const lastActive = (s: SessionSummary) => s.lastActivityAt ?? s.createdAt;
  return [...sessions]
    .sort((a, b) => lastActive(b).localeCompare(lastActive(a)))
    .map((s) => [s.id, cut(labelOf(s)), s.model, names.get(s.workspaceId) ?? `${s.workspaceId} (deleted)`, when(lastActive(s), s.activeTurnId)]);
}

function labelOf(session: SessionSummary): string {
  return (session.title ?? session.preview ?? '(no messages yet)').replace(/\s+/g, ' ').trim();
}

function cut(text: string): string {
  return text.length > MAX_TITLE_CHARS ? `${text.slice(0, MAX_TITLE_CHARS - 1)}…` : text;
}

function when(iso: string, activeTurnId: string | null | undefined): string {
  return `${iso.slice(0, 16).replace('T', ' ')}${activeTurnId ? ' (running)' : ''}`;
}
