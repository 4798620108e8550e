import { useEffect, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { Session } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { ChainsPanel } from '../chains/ChainsPanel';
import { FilesPanel } from '../files/FilesPanel';
import { NotesPanel } from '../notes/NotesPanel';
import { Composer } from './Composer';
import { SessionActions } from './SessionActions';
import { TimelineView } from './TimelineView';
import { useSessionEvents } from './use-session-events';

const STREAM_TEXT = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', failed: 'Disconnected' } as const;

/** A session: its conversation (replayed from the log, then live), the composer, and its files. */
export function ChatView({ api, sessionId, onActivity }: { api: ApiClient; sessionId: string; onActivity: () => void }) {
  const [session, setSession] = useState<Session | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { timeline, stream } = useSessionEvents(api, sessionId);
  const [cancelError, setCancelError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  const activeTurnId = timeline.activeTurnId;

  useEffect(() => {
    api.session(sessionId).then(setSession, setError);
  }, [api, sessionId]);

  // The list shows last activity and "working": refresh it when a turn starts or ends.
  const wasActive = useRef(activeTurnId);
  useEffect(() => {
    if (wasActive.current !== activeTurnId) onActivity();
    wasActive.current = activeTurnId;
    setCancelling(false);
  }, [activeTurnId, onActivity]);

  if (error) {
    return (
      <section className="chat-error">
        <h1>Session {sessionId}</h1>
        <ErrorMessage error={error} />
        <a href="#/">Back to the start</a>
      </section>
    );
  }

  const cancel = async () => {
    if (!activeTurnId) return;
    setCancelling(true);
    setCancelError(null);
    try {
      await api.cancelTurn(sessionId, activeTurnId);
    } catch (err) {
      setCancelling(false);
      setCancelError(err);
    }
  };

  const title = session?.title || 'Session';
  return (
    <div className="session-view">
      <section className="chat" aria-labelledby="chat-title">
        <header className="chat-head">
          <h1 id="chat-title">{title}</h1>
          <span className="chat-meta">
            {session ? `${session.model} · ${session.workspaceId}` : ''}
            <span className={`stream ${stream.status}`} role="status" aria-live="polite" data-testid="stream-status">
              {STREAM_TEXT[stream.status]}
              {stream.status === 'reconnecting' || stream.status === 'failed' ? `: ${stream.reason}` : ''}
            </span>
          </span>
          {session ? (
            <SessionActions
              api={api}
              session={session}
              onRenamed={(title) => {
                setSession({ ...session, title });
                onActivity();
              }}
            />
          ) : null}
          {activeTurnId ? (
            <button type="button" className="danger small" onClick={() => void cancel()} disabled={cancelling}>
              {cancelling ? 'Cancelling…' : 'Cancel turn'}
            </button>
          ) : null}
        </header>
        <ErrorMessage error={cancelError} />
        <TimelineView api={api} sessionId={sessionId} workspaceId={session?.workspaceId} timeline={timeline} />
        <Composer api={api} sessionId={sessionId} busy={activeTurnId !== null} />
      </section>
      {session ? (
        <div className="side-column">
          <FilesPanel api={api} workspaceId={session.workspaceId} version={timeline.filesVersion} changed={timeline.changedPaths} />
          <NotesPanel api={api} workspaceId={session.workspaceId} version={timeline.filesVersion} />
          <ChainsPanel api={api} sessionId={sessionId} busy={activeTurnId !== null} />
        </div>
      ) : null}
    </div>
  );
}
