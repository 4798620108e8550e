import { type ChatMessage, type StoredSessionEvent, assertUnreachable } from '@weft/contracts';
import { RUNTIME_NOTE_PREFIX } from '../agent-core/runtime-note';
import type { Session } from './sessions.repository';

/** Events that make up the audit trail: every tool call, permission decision and result. */
const AUDIT_TYPES = new Set<StoredSessionEvent['type']>([
  'tool.called',
  'permission.requested',
  'permission.decided',
  'tool.completed',
  'turn.interrupted',
  'turn.cancelled',
  'delegation.started',
  'delegation.completed',
  'note.saved',
]);

function header(session: Session) {
  const { id, title, workspaceId, model, createdAt, instructions } = session;
  return { type: 'session', id, title, workspaceId, model, createdAt, instructions, compaction: compactionOf(session) };
}

/** `messages` stay as the user saw them; the first `summarisedMessages` reach the model as `summary`. */
export function compactionOf(session: Session): { summarisedMessages: number; summary: string } | null {
  const context = session.context;
  return context?.summary ? { summarisedMessages: context.summarisedMessages, summary: context.summary } : null;
}

/**
 * The whole session as JSON lines: the session, then every message as the model saw it, then
 * every event as the user saw it (deltas and live tool output left out: `message.completed` and
 * `tool.completed` carry their text).
 */
export function toJsonl(
  session: Session,
  messages: ChatMessage[],
  events: StoredSessionEvent[],
  threads: ReadonlyMap<string, ChatMessage[]> = new Map(),
): string {
  const lines = [
    header(session),
    ...messages.map((message, index) => ({ type: 'message', index, message })),
    // Delegated and subtask conversations, as their models saw them.
    ...[...threads].flatMap(([threadId, thread]) => thread.map((message, index) => ({ type: 'message', threadId, index, message }))),
    ...events.filter((e) => e.type !== 'message.delta' && e.type !== 'tool.output').map((event) => ({ type: 'event', event })),
  ];
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

export function toAuditJsonl(events: StoredSessionEvent[]): string {
  return events
    .filter((e) => AUDIT_TYPES.has(e.type))
    .map((e) => JSON.stringify(e))
    .map((line) => `${line}\n`)
    .join('');
}

/** The conversation as a person reads it, built from the event log. */
export function toMarkdown(session: Session, events: StoredSessionEvent[]): string {
  const out: string[] = [`# ${session.title ?? `Session ${session.id}`}`, ''];
  out.push(`- Session: \`${session.id}\``, `- Workspace: \`${session.workspaceId}\``, `- Model: \`${session.model}\``);
  out.push(`- Created: ${session.createdAt}`);
  if (session.instructions?.project) out.push(`- Project instructions: \`${session.instructions.project.file}\``);
  if (session.instructions?.personal) out.push('- Personal instructions: yes');
  let pending = '';
  let pendingThread: string | undefined;
  const flush = () => {
    if (pending.trim() !== '') out.push('', pendingThread ? `## Assistant · ${pendingThread}` : '## Assistant', '', pending.trim());
    pending = '';
  };
  for (const event of events) {
    switch (event.type) {
      case 'message.delta':
        if (event.threadId !== pendingThread) flush();
        pendingThread = event.threadId;
        pending += event.text;
        break;
      case 'message.resync': // deltas were lost on the way: this is the generation's whole text
        if (event.threadId !== pendingThread) flush();
        pendingThread = event.threadId;
        pending = event.text;
        break;
      case 'message.created':
        flush();
        out.push('', `## User · ${event.at}`, '', event.content);
        break;
      case 'message.completed':
        if (pending.trim() === '') pending = event.content;
        flush();
        break;
      case 'tool.called':
        flush();
        out.push('', `**Tool call** \`${event.call.name}\` (${event.call.id})`, '', fence(JSON.stringify(event.call.arguments, null, 2), 'json'));
        break;
      case 'permission.requested':
        out.push('', `**Permission asked** for \`${event.subject}\`: ${event.reasons.join('; ')}`);
        break;
      case 'permission.decided':
        if (event.decidedBy !== 'policy') {
          const who = event.decidedBy === 'user' ? `user ${event.userId ?? ''}`.trim() : event.decidedBy;
          out.push('', `**Permission ${event.decision}** by ${who}${event.reason ? `: ${event.reason}` : ''}`);
        } else if (event.decision === 'deny') {
          out.push('', `**Permission deny** by policy${event.rule ? ` (${event.scope} rule \`${event.rule}\`)` : ''}`);
        }
        break;
      case 'tool.completed':
        out.push('', `**Result${event.isError ? ' (error)' : ''}** of \`${event.name}\``, '', fence(event.output));
        break;
      case 'turn.interrupted':
        flush();
        out.push('', `> Turn interrupted (${event.reason}): ${event.message}`);
        break;
      case 'turn.cancelled':
        flush();
        out.push('', '> Turn cancelled');
        break;
      case 'context.compacted':
        flush();
        out.push('', `> Context compacted: ${event.summarisedMessages} older messages summarised for the model (about ${event.tokensBefore} → ${event.tokensAfter} of ${event.contextSize} tokens)`);
        break;
      case 'turn.failed':
        flush();
        out.push('', `> Turn failed: ${event.code}: ${event.message}`);
        break;
      case 'plan.created':
        flush();
        out.push('', '## Plan', '', event.plan.trim(), '', ...event.subtasks.map((t, i) => `${i + 1}. **${t.title}**: ${t.description}`));
        break;
      case 'subtask.started':
        flush();
        out.push('', `### Subtask ${event.index} of ${event.total}: ${event.title}`);
        break;
      case 'subtask.completed':
        flush();
        out.push('', `> Subtask ${event.index} ${event.status}: ${event.summary.trim()}`);
        break;
      case 'delegation.started':
        flush();
        out.push('', `### ${event.from} hands a task to ${event.to}`, '', event.task);
        break;
      case 'delegation.completed':
        flush();
        out.push('', `> ${event.to} reports back to ${event.from} (${event.status})`);
        break;
      case 'note.saved':
        out.push('', `> Note saved by ${event.model}: ${event.text}`);
        break;
      case 'chain.step.started':
        flush();
        out.push('', `### Chain ${event.chain}, step ${event.index} of ${event.total}: ${event.step} (${event.kind})`);
        break;
      case 'chain.step.completed':
        flush();
        if (event.isError) out.push('', `> Step ${event.step} failed`);
        break;
      case 'mcp.server.unavailable':
        out.push('', `> MCP server ${event.server} (${event.scope}) was ${event.state}: ${event.problem}`);
        break;
      case 'turn.started':
      case 'turn.completed':
      case 'tool.output': // a long run's live output: its tool.completed carries it
      case 'model.loading':
      case 'generation.resumed': // the reply's deltas go on as one text
        break;
      default:
        return assertUnreachable(event);
    }
  }
  flush();
  return `${out.join('\n')}\n`;
}

/** A short line for session lists: the first thing the user asked. */
export function preview(message: ChatMessage | undefined, max = 120): string | null {
  if (!message || message.role !== 'user' || message.content.startsWith(RUNTIME_NOTE_PREFIX)) return null;
  const line = message.content.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}
