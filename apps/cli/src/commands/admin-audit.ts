import { type Command, Option } from 'commander';
import { AUDIT_KINDS, type AuditEntry, type AuditKind, MAX_AUDIT_PAGE } from '@weft/contracts';
import type { AdminClient } from '../admin-client';
import { outColors, type CliContext } from '../context';
import { tableText } from '../table';
import type { AdminConnect } from './admin-connect';

const FORMATS = ['table', 'json', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];

interface AuditOptions {
  user?: string;
  session?: string;
  kind?: AuditKind;
  action?: string;
  from?: string;
  to?: string;
  limit: string;
  all?: boolean;
  json?: boolean;
  format: Format;
}

/** `audit`: the tool calls and admin actions, newest first, as a table, JSON or JSONL. */
export function addAuditCommand(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('audit')
    .description('the audit trail, newest first: every tool call (who, session, tool, arguments, decision, outcome) and every admin action')
    .option('--user <userId>', 'only what this user did, or (admin actions) what was done to them')
    .option('--session <sessionId>', "only this session's tool calls")
    .addOption(new Option('--kind <kind>', 'only tool calls or only admin actions').choices(AUDIT_KINDS))
    .option('--action <name>', 'only this admin action (user.deleted) or tool (run_command)')
    .option('--from <time>', 'from this UTC date or ISO date-time')
    .option('--to <time>', 'up to this UTC date (the whole day) or ISO date-time')
    .option('--limit <n>', 'at most this many entries', '50')
    .option('--all', 'every matching entry (for an export)')
    .option('--json', 'the same as --format json')
    .addOption(new Option('--format <format>', 'a table, a JSON array, or one JSON object a line').choices(FORMATS).default('table'))
    .addHelpText('after', '\nExamples:\n  weft admin audit --session ses_… \n  weft admin audit --user usr_… --from 2026-11-01 --all --format jsonl > audit.jsonl')
    .action(async (options: AuditOptions) => {
      const limit = options.all ? Infinity : Number(options.limit);
      if (!Number.isInteger(limit) && limit !== Infinity) throw new Error('--limit must be a whole number');
      const entries = readTrail(await connect(), options, limit);
      const format: Format = options.json ? 'json' : options.format;
      if (format === 'jsonl') {
        for await (const entry of entries) ctx.stdout.write(`${JSON.stringify(entry)}\n`);
        return;
      }
      const all: AuditEntry[] = [];
      for await (const entry of entries) all.push(entry);
      if (format === 'json') {
        ctx.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
        return;
      }
      const c = outColors(ctx);
      if (all.length === 0) {
        ctx.stdout.write(c.dim('nothing in the audit trail matches\n'));
        return;
      }
      const columns = [{ header: 'time (UTC)' }, { header: 'user' }, { header: 'session' }, { header: 'action' }, { header: 'what' }, { header: 'decision' }, { header: 'outcome' }];
      ctx.stdout.write(tableText(columns, all.map(auditRow), c));
    });
}

/** The entries page after page, until `limit` or the end of what matches. */
async function* readTrail(client: AdminClient, options: AuditOptions, limit: number): AsyncGenerator<AuditEntry> {
  const filter = { user: options.user, session: options.session, kind: options.kind, action: options.action, from: options.from, to: options.to };
  let left = limit;
  for (let before: string | undefined; left > 0; ) {
    const page = await client.audit({ ...filter, before, limit: Math.min(left, MAX_AUDIT_PAGE) });
    for (const entry of page.entries) yield entry;
    left -= page.entries.length;
    if (!page.next) return;
    before = page.next;
  }
}

/** One line of the table: a tool call's arguments and how it was decided and ended, or an admin action's subject. */
export function auditRow(entry: AuditEntry): string[] {
  const time = entry.at.slice(0, 19).replace('T', ' ');
  if (entry.kind === 'admin') {
    const details = entry.details ? ` ${JSON.stringify(entry.details)}` : '';
    return [time, entry.actor, '-', entry.action, cut(`${entry.userId ?? ''}${details}`.trim() || '-'), '-', '-'];
  }
  return [time, entry.actor, entry.sessionId ?? '-', entry.action, cut(entry.args ?? ''), decisionText(entry), outcomeText(entry)];
}

export function decisionText(entry: AuditEntry): string {
  if (!entry.decision) return '-';
  const by = entry.decidedBy === 'user' ? `user ${entry.decider ?? ''}`.trim() : entry.decidedBy === 'policy' ? `rule ${entry.rule ?? `(${entry.scope ?? 'default'})`}` : (entry.decidedBy ?? '');
  return `${entry.decision} by ${by}`;
}

export function outcomeText(entry: AuditEntry): string {
  if (!entry.outcome) return '-';
  if (entry.exitCode !== undefined) return `${entry.outcome} (exit ${entry.exitCode})`;
  return entry.errorCode && entry.outcome === 'error' ? `error ${entry.errorCode}` : entry.outcome;
}

function cut(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
