import type { PlanItem, TimelineItem } from './timeline';

/** A run of the timeline as the chat shows it: an item of the main conversation, or a folded thread. */
export type TimelineEntry = { kind: 'item'; item: TimelineItem } | { kind: 'thread'; threadId: string; turnId: string; label: string; items: TimelineItem[] };

const threadOf = (item: TimelineItem): string | undefined => ('threadId' in item ? item.threadId : undefined);

/**
 * Folds the events of a delegated junior (`del_<callId>`) or a planning subtask (`sub_<n>`) under
 * one entry each, where their first event falls, so the main conversation reads as hand-off,
 * folded work, report.
 */
export function foldThreads(items: readonly TimelineItem[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const open = new Map<string, Extract<TimelineEntry, { kind: 'thread' }>>();
  for (const item of items) {
    const threadId = threadOf(item);
    if (!threadId) {
      entries.push({ kind: 'item', item });
      continue;
    }
    let thread = open.get(threadId);
    if (!thread) {
      thread = { kind: 'thread', threadId, turnId: item.turnId, label: threadLabel(threadId, items), items: [] };
      open.set(threadId, thread);
      entries.push(thread);
    }
    thread.items.push(item);
  }
  return entries;
}

/** "Subtask 2 of 3: Report" for a subtask the plan names; "The junior's work" for a delegation. */
export function threadLabel(threadId: string, items: readonly TimelineItem[]): string {
  if (threadId.startsWith('del_')) return "The junior's work";
  const plan = items.find((item): item is PlanItem => item.kind === 'plan' && item.subtasks.some((s) => s.threadId === threadId));
  const index = plan?.subtasks.findIndex((s) => s.threadId === threadId) ?? -1;
  if (!plan || index < 0) return 'Subtask';
  return `Subtask ${index + 1} of ${plan.subtasks.length}: ${plan.subtasks[index]?.title ?? ''}`;
}
