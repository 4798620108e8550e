import { useEffect, useLayoutEffect, useRef } from 'react';
import type { ApiClient } from '../api/client';
import { Markdown } from '../components/Markdown';
import { type TimelineEntry, foldThreads } from '../timeline/threads';
import type { PlanItem, SubtaskStatus, Timeline, TimelineItem } from '../timeline/timeline';
import { ModelWaitLine } from './ModelWaitLine';
import { ToolCard } from './ToolCard';
import { useFollowBottom } from './use-follow-bottom';

export function TimelineView({ api, sessionId, workspaceId, timeline }: { api: ApiClient; sessionId: string; workspaceId?: string; timeline: Timeline }) {
  const list = useRef<HTMLOListElement>(null);
  const follow = useFollowBottom(list);
  const lastUserMessage = timeline.items.findLast((item) => item.kind === 'user')?.eventId;
  const waiting = timeline.activeTurnId !== null ? timeline.modelWait : null;

  // A message just sent (from here or another tab) starts following again, wherever the reader was.
  useEffect(() => follow.resume(), [follow, lastUserMessage]);
  // After every render, before paint: what arrived stays in view while the reader is at the end.
  useLayoutEffect(() => follow.keep());

  return (
    <ol
      ref={list}
      className="timeline"
      aria-label="Conversation"
      tabIndex={0}
      data-applied-events={timeline.applied}
      data-last-event-id={timeline.lastEventId ?? ''}
      onScroll={follow.onScroll}
    >
      {timeline.items.length === 0 ? <li className="hint">No messages yet: say what you want done below.</li> : null}
      {foldThreads(timeline.items).map((entry) => (
        <Entry key={entryKey(entry)} api={api} sessionId={sessionId} workspaceId={workspaceId} entry={entry} activeTurnId={timeline.activeTurnId} />
      ))}
      {waiting ? (
        <li className="item item-wait">
          <ModelWaitLine wait={waiting} model={timeline.model} />
        </li>
      ) : null}
    </ol>
  );
}

const entryKey = (entry: TimelineEntry) => (entry.kind === 'item' ? entry.item.eventId : entry.threadId);

/** An item of the conversation, or a delegated junior's or a subtask's work folded under its name (open while its turn runs). */
function Entry({ api, sessionId, workspaceId, entry, activeTurnId }: { api: ApiClient; sessionId: string; workspaceId?: string; entry: TimelineEntry; activeTurnId: string | null }) {
  if (entry.kind === 'item') {
    return (
      <li className={`item item-${entry.item.kind}`} data-event-id={entry.item.eventId}>
        <Item api={api} sessionId={sessionId} workspaceId={workspaceId} item={entry.item} />
      </li>
    );
  }
  return (
    <li className="item item-thread" data-thread-id={entry.threadId}>
      <details open={entry.turnId === activeTurnId}>
        <summary>
          {entry.label} <span className="hint">({entry.items.length} steps)</span>
        </summary>
        <ol className="thread">
          {entry.items.map((item) => (
            <li key={item.eventId} className={`item item-${item.kind} threaded`} data-event-id={item.eventId}>
              <Item api={api} sessionId={sessionId} workspaceId={workspaceId} item={item} />
            </li>
          ))}
        </ol>
      </details>
    </li>
  );
}

const SUBTASK_STATUS: Record<SubtaskStatus, string> = { pending: 'Waiting', running: 'Running', completed: 'Done', stopped: 'Stopped early' };

function PlanCard({ plan }: { plan: PlanItem }) {
  const done = plan.subtasks.filter((s) => s.status === 'completed' || s.status === 'stopped').length;
  return (
    <section className="plan-card" aria-label="Plan">
      <p className="who">
        Plan · {done} of {plan.subtasks.length} subtasks done
      </p>
      <Markdown text={plan.plan} />
      <ol className="subtasks">
        {plan.subtasks.map((subtask, index) => (
          <li key={`${index}-${subtask.title}`} className={`subtask ${subtask.status}`} data-status={subtask.status}>
            <span className="subtask-status">{SUBTASK_STATUS[subtask.status]}</span> <strong>{subtask.title}</strong>: {subtask.description}
            {subtask.summary ? <Markdown text={subtask.summary} /> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}

function Item({ api, sessionId, workspaceId, item }: { api: ApiClient; sessionId: string; workspaceId?: string; item: TimelineItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <div className="bubble user" aria-label="You">
          <p className="who">You</p>
          <p className="plain">{item.content}</p>
        </div>
      );
    case 'assistant':
      return (
        <div className={`bubble assistant${item.final ? ' final' : ''}`} aria-label="Agent">
          <p className="who">Agent</p>
          <Markdown text={item.text} />
        </div>
      );
    case 'tool':
      return <ToolCard api={api} sessionId={sessionId} workspaceId={workspaceId} tool={item} />;
    case 'plan':
      return <PlanCard plan={item} />;
    case 'notice':
      return (
        <div className={`notice ${item.tone}`}>
          <p>{item.text}</p>
          {item.body ? <Markdown text={item.body} /> : null}
        </div>
      );
  }
}
