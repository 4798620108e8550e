import type { StoredSessionEvent } from '@weft/contracts';
import { useEffect, useReducer, useState } from 'react';
import type { ApiClient } from '../api/client';
import { type StreamState, followSession } from '../api/event-stream';
import { type Timeline, applyEvents, emptyTimeline } from '../timeline/timeline';

/** Events that arrive together (the replay of a long log) are rendered together. */
const BATCH_MS = 40;

type Action = { type: 'reset' } | { type: 'events'; events: StoredSessionEvent[] };

function reducer(state: Timeline, action: Action): Timeline {
  return action.type === 'reset' ? emptyTimeline : applyEvents(state, action.events);
}

/** A session's timeline, replayed from its log and kept live while the component is mounted. */
export function useSessionEvents(api: ApiClient, sessionId: string): { timeline: Timeline; stream: StreamState } {
  const [timeline, dispatch] = useReducer(reducer, emptyTimeline);
  const [stream, setStream] = useState<StreamState>({ status: 'connecting' });

  useEffect(() => {
    dispatch({ type: 'reset' });
    const controller = new AbortController();
    let pending: StoredSessionEvent[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const events = pending;
      pending = [];
      dispatch({ type: 'events', events });
    };
    const onEvents = (events: StoredSessionEvent[]) => {
      pending.push(...events);
      timer ??= setTimeout(flush, BATCH_MS);
    };
    void followSession(api, sessionId, onEvents, setStream, controller.signal);
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, sessionId]);

  return { timeline, stream };
}
