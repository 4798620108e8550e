import { type StoredSessionEvent, assertUnreachable } from '@weft/contracts';
import { type ModelWait, modelWaitAfter } from './model-wait';
import { compareStreamIds } from './stream-id';

/**
 * A session's log folded into what the chat shows. Pure: the page replays the whole log through
 * it on open and feeds it live events after; an event it has already applied (same or older id,
 * as a reconnect may resend) changes nothing, so each shows exactly once.
 */
export interface UserItem {
  kind: 'user';
  eventId: string;
  turnId: string;
  content: string;
}
export interface AssistantItem {
  kind: 'assistant';
  eventId: string;
  turnId: string;
  threadId?: string;
  text: string;
  /** The final answer of its turn (`message.completed`), not a step's running commentary. */
  final: boolean;
}
export interface PermissionAsk {
  eventId: string;
  requestId: string;
  subject: string;
  reasons: string[];
  suggestedRules: string[];
  expiresAt: string;
}
export interface PermissionOutcome {
  decision: 'allow' | 'deny';
  decidedBy: 'policy' | 'user' | 'timeout' | 'cancel';
  rule?: string;
  storedRules?: string[];
  reason?: string;
}
export interface ToolItem {
  kind: 'tool';
  eventId: string;
  turnId: string;
  threadId?: string;
  callId: string;
  name: string;
  args: Record<string, unknown>;
  calledAt: string;
  permission?: PermissionAsk;
  decision?: PermissionOutcome;
  /** Output of a long run as it streams (stdout and stderr interleaved as they came). */
  live: string;
  result?: { isError: boolean; output: string; at: string };
}
export interface NoticeItem {
  kind: 'notice';
  eventId: string;
  turnId: string;
  tone: 'info' | 'success' | 'warning' | 'error';
  text: string;
  /** Longer text shown under it as markdown (a plan, a subtask's report). */
  body?: string;
}
export type SubtaskStatus = 'pending' | 'running' | 'completed' | 'stopped';
export interface PlanSubtask {
  title: string;
  description: string;
  status: SubtaskStatus;
  /** The thread its events carry (`sub_<n>`), once it started. */
  threadId?: string;
  /** What the subtask's loop reported at its end. */
  summary?: string;
}
/** A planning turn's plan, its subtasks' progress kept up to date in place. */
export interface PlanItem {
  kind: 'plan';
  eventId: string;
  turnId: string;
  plan: string;
  subtasks: PlanSubtask[];
}
export type TimelineItem = UserItem | AssistantItem | ToolItem | NoticeItem | PlanItem;

export interface Timeline {
  lastEventId: string | null;
  items: TimelineItem[];
  activeTurnId: string | null;
  /** Goes up whenever a tool may have changed the workspace's files, so file views reload. */
  filesVersion: number;
  /** Files the latest turn wrote, edited, moved or deleted (by the file tools' arguments). */
  changedPaths: string[];
  /** How many events were applied (a test and a reader of the page can check none was doubled). */
  applied: number;
  /** The running turn's model was asked and has written nothing yet (it reads its prompt). */
  modelWait: ModelWait | null;
  /** The model the running (or last) turn talks to. */
  model: string | null;
}

export const emptyTimeline: Timeline = {
  lastEventId: null,
  items: [],
  activeTurnId: null,
  filesVersion: 0,
  changedPaths: [],
  applied: 0,
  modelWait: null,
  model: null,
};

/** Tools after which the file tree is reloaded; commands can change anything. */
const FILE_CHANGING_TOOLS = new Set(['write_file', 'edit_file', 'move_file', 'delete_file', 'create_directory', 'run_command', 'execute_code']);

export function applyEvents(state: Timeline, events: readonly StoredSessionEvent[]): Timeline {
  const draft: Draft = { ...state, items: [...state.items] };
  for (const event of events) {
    if (draft.lastEventId !== null && compareStreamIds(event.id, draft.lastEventId) <= 0) continue;
    apply(draft, event);
    draft.modelWait = modelWaitAfter(draft.modelWait, event);
    draft.lastEventId = event.id;
    draft.applied += 1;
  }
  return draft.applied === state.applied ? state : draft;
}

/** Changed in place while one batch of events is applied; a new object to React after it. */
type Draft = Timeline;

function apply(t: Draft, e: StoredSessionEvent): void {
  switch (e.type) {
    case 'message.created':
      t.items.push({ kind: 'user', eventId: e.id, turnId: e.turnId, content: e.content });
      t.changedPaths = [];
      return;
    case 'turn.started':
      t.activeTurnId = e.turnId;
      t.model = e.model;
      if (e.resumed) notice(t, e, 'info', `Another gateway took this turn over (${e.model}).`);
      return;
    case 'message.delta': {
      const open = openAssistant(t, e.turnId, e.threadId);
      if (open) replace(t, open.index, { ...open.item, text: open.item.text + e.text });
      else t.items.push({ kind: 'assistant', eventId: e.id, turnId: e.turnId, threadId: e.threadId, text: e.text, final: false });
      return;
    }
    case 'message.resync': {
      // Deltas were lost on the way: the stored text replaces what they pieced together.
      const open = openAssistant(t, e.turnId, e.threadId);
      if (open) replace(t, open.index, { ...open.item, text: e.text });
      else t.items.push({ kind: 'assistant', eventId: e.id, turnId: e.turnId, threadId: e.threadId, text: e.text, final: false });
      return;
    }
    case 'message.completed': {
      const open = openAssistant(t, e.turnId, undefined);
      if (open) replace(t, open.index, { ...open.item, text: e.content, final: true });
      else t.items.push({ kind: 'assistant', eventId: e.id, turnId: e.turnId, text: e.content, final: true });
      return;
    }
    case 'tool.called':
      t.items.push({
        kind: 'tool',
        eventId: e.id,
        turnId: e.turnId,
        threadId: e.threadId,
        callId: e.call.id,
        name: e.call.name,
        args: e.call.arguments,
        calledAt: e.at,
        live: '',
      });
      t.changedPaths = [...new Set([...t.changedPaths, ...pathsChangedBy(e.call.name, e.call.arguments)])];
      return;
    case 'permission.requested': {
      const ask = { eventId: e.id, requestId: e.requestId, subject: e.subject, reasons: e.reasons, suggestedRules: e.suggestedRules, expiresAt: e.expiresAt };
      updateTool(t, e.callId, (tool) => ({ ...tool, permission: ask }));
      return;
    }
    case 'permission.decided':
      updateTool(t, e.callId, (tool) => ({
        ...tool,
        decision: { decision: e.decision, decidedBy: e.decidedBy, rule: e.rule, storedRules: e.storedRules, reason: e.reason },
      }));
      return;
    case 'tool.output':
      updateTool(t, e.callId, (tool) => ({ ...tool, live: tool.live + e.text }));
      return;
    case 'tool.completed':
      updateTool(t, e.callId, (tool) => ({ ...tool, result: { isError: e.isError, output: e.output, at: e.at } }));
      if (FILE_CHANGING_TOOLS.has(e.name)) t.filesVersion += 1;
      return;
    case 'turn.completed':
      endTurn(t, e.turnId);
      if (e.stopReason) notice(t, e, 'warning', `The turn was stopped early (${e.stopReason.replace(/_/g, ' ')}).`);
      return;
    case 'turn.failed':
      endTurn(t, e.turnId);
      notice(t, e, 'error', `The turn failed: ${e.message} (${e.code})`);
      return;
    case 'turn.cancelled':
      endTurn(t, e.turnId);
      notice(t, e, 'warning', 'The turn was cancelled.');
      return;
    case 'turn.interrupted':
      notice(t, e, 'warning', `Interrupted: ${e.message}`);
      return;
    case 'context.compacted':
      notice(t, e, 'info', `Older messages were summarised to fit the model's context (${e.summarisedMessages} summarised, ${e.keptMessages} kept).`);
      return;
    case 'plan.created': {
      // The plan streamed as text first (and, from gateways before #30, the subtasks' JSON after
      // it): the card shows both, so that text goes.
      const open = openAssistant(t, e.turnId, undefined);
      if (open) t.items.splice(open.index, 1);
      t.items.push({ kind: 'plan', eventId: e.id, turnId: e.turnId, plan: e.plan, subtasks: e.subtasks.map((s) => ({ ...s, status: 'pending' })) });
      return;
    }
    // A subtask's and a chain step's `index` count from 1.
    case 'subtask.started':
      updateSubtask(t, e.turnId, e.index - 1, { status: 'running', threadId: e.threadId });
      return;
    case 'subtask.completed':
      updateSubtask(t, e.turnId, e.index - 1, { status: e.status, threadId: e.threadId, summary: e.summary });
      return;
    case 'delegation.started':
      notice(t, e, 'info', `${e.from} hands a task to ${e.to}`, e.task);
      return;
    case 'delegation.completed':
      notice(t, e, e.status === 'completed' ? 'success' : 'warning', `${e.to} reports back to ${e.from}`, e.result);
      return;
    case 'note.saved':
      notice(t, e, 'info', `Noted for this workspace: ${e.text}`);
      return;
    case 'chain.step.started':
      notice(t, e, 'info', `Chain ${e.chain}, step ${e.index}/${e.total}: ${e.step}`);
      return;
    case 'chain.step.completed':
      notice(t, e, e.isError ? 'error' : 'success', `Chain ${e.chain}, step ${e.step} ${e.isError ? 'failed' : 'done'}`);
      return;
    case 'model.loading':
      return; // shown by the wait line, not as a notice
    case 'generation.resumed':
      notice(t, e, 'info', `The model's worker went away; ${e.model} went on on another worker after ${Math.round(e.pausedMs / 100) / 10} s, nothing lost.`);
      return;
    case 'mcp.server.unavailable':
      notice(t, e, 'warning', `MCP server ${e.server} could not be used: ${e.problem}`);
      return;
    default:
      assertUnreachable(e);
  }
}

/** The assistant text still taking deltas: the last item, if it is this turn's and thread's. */
function openAssistant(t: Draft, turnId: string, threadId: string | undefined): { item: AssistantItem; index: number } | null {
  for (let index = t.items.length - 1; index >= 0; index--) {
    const item = t.items[index];
    if (!item || item.kind === 'notice' || item.kind === 'plan') continue;
    const open = item.kind === 'assistant' && !item.final && item.turnId === turnId && item.threadId === threadId;
    return open ? { item, index } : null;
  }
  return null;
}

function updateTool(t: Draft, callId: string, change: (tool: ToolItem) => ToolItem): void {
  for (let index = t.items.length - 1; index >= 0; index--) {
    const item = t.items[index];
    if (item?.kind === 'tool' && item.callId === callId) {
      replace(t, index, change(item));
      return;
    }
  }
}

function updateSubtask(t: Draft, turnId: string, index: number, change: Partial<PlanSubtask>): void {
  for (let at = t.items.length - 1; at >= 0; at--) {
    const item = t.items[at];
    if (item?.kind !== 'plan' || item.turnId !== turnId) continue;
    replace(t, at, { ...item, subtasks: item.subtasks.map((s, i) => (i === index ? { ...s, ...change } : s)) });
    return;
  }
}

function replace(t: Draft, index: number, item: TimelineItem): void {
  t.items[index] = item;
}

function endTurn(t: Draft, turnId: string): void {
  if (t.activeTurnId === turnId) t.activeTurnId = null;
  t.filesVersion += 1;
}

function notice(t: Draft, e: StoredSessionEvent, tone: NoticeItem['tone'], text: string, body?: string): void {
  t.items.push({ kind: 'notice', eventId: e.id, turnId: e.turnId, tone, text, body });
}

/** The workspace paths a file tool's call writes, by its arguments (commands are not parsed). */
export function pathsChangedBy(tool: string, args: Record<string, unknown>): string[] {
  const str = (value: unknown) => (typeof value === 'string' ? [value.replace(/^\.\//, '')] : []);
  switch (tool) {
    case 'write_file':
    case 'edit_file':
    case 'delete_file':
      return str(args.path);
    case 'move_file':
      return [...str(args.from), ...str(args.to)];
    default:
      return [];
  }
}
