import { useEffect, useRef } from 'react';
import type { ApiClient } from '../api/client';
import { Markdown } from '../components/Markdown';
import type { Timeline, TimelineItem } from '../timeline/timeline';
import { ToolCard } from './ToolCard';

/** How close to the bottom (px) counts as following the conversation. */
const FOLLOW_SLACK = 120;

export function TimelineView({ api, sessionId, timeline }: { api: ApiClient; sessionId: string; timeline: Timeline }) {
  const list = useRef<HTMLOListElement>(null);
  const following = useRef(true);

  useEffect(() => {
    const el = list.current;
    if (el && following.current) el.scrollTop = el.scrollHeight;
  }, [timeline]);

  return (
    <ol
      ref={list}
      className="timeline"
      aria-label="Conversation"
      tabIndex={0}
      data-applied-events={timeline.applied}
      data-last-event-id={timeline.lastEventId ?? ''}
      onScroll={(event) => {
        const el = event.currentTarget;
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < FOLLOW_SLACK;
      }}
    >
      {timeline.items.length === 0 ? <li className="hint">No messages yet: say what you want done below.</li> : null}
      {timeline.items.map((item) => (
        <li key={item.eventId} className={`item item-${item.kind}${'threadId' in item && item.threadId ? ' threaded' : ''}`} data-event-id={item.eventId}>
          <Item api={api} sessionId={sessionId} item={item} />
        </li>
      ))}
    </ol>
  );
}

function Item({ api, sessionId, item }: { api: ApiClient; sessionId: string; item: TimelineItem }) {
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
      return <ToolCard api={api} sessionId={sessionId} tool={item} />;
    case 'notice':
      return (
        <div className={`notice ${item.tone}`}>
          <p>{item.text}</p>
          {item.body ? <Markdown text={item.body} /> : null}
        </div>
      );
  }
}
