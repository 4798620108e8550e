import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { SessionSummary } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { sessionHref } from '../route';
import { relativeTime } from '../time';

const matches = (s: SessionSummary, query: string) =>
  [s.title, s.preview, s.model].some((text) => text?.toLowerCase().includes(query));

/** The user's sessions, newest first, searchable by title, first message and model, with a two-step delete. */
export function SessionList({
  api,
  version,
  currentId,
  onDeleted,
}: {
  api: ApiClient;
  version: number;
  currentId: string | null;
  onDeleted: (id: string) => void;
}) {
  const [sessions, setSessions] = useState<SessionSummary[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const needle = query.trim().toLowerCase();
  const shown = needle ? sessions?.filter((s) => matches(s, needle)) : sessions;

  useEffect(() => {
    let live = true;
    api.sessions().then(
      (list) => {
        if (!live) return;
        setSessions(list);
        setError(null);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [api, version]);

  const remove = async (id: string) => {
    setConfirming(null);
    try {
      await api.deleteSession(id);
      setSessions((list) => list?.filter((s) => s.id !== id) ?? null);
      onDeleted(id);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div className="session-list">
      <h2 id="sessions-heading">Sessions</h2>
      <ErrorMessage error={error} />
      {sessions === null && !error ? <p role="status">Loading…</p> : null}
      {sessions?.length === 0 ? <p className="hint">No sessions yet.</p> : null}
      {sessions?.length ? (
        <input type="search" className="session-search" aria-label="Search sessions" placeholder="Search" value={query} onChange={(e) => setQuery(e.target.value)} />
      ) : null}
      {sessions?.length && shown?.length === 0 ? <p className="hint">No session matches “{query.trim()}”.</p> : null}
      <ul aria-labelledby="sessions-heading">
        {shown?.map((s) => {
          const name = s.title || s.preview || 'New session';
          return (
            <li key={s.id} className={s.id === currentId ? 'current' : undefined} data-session-id={s.id}>
              <a href={sessionHref(s.id)} aria-current={s.id === currentId ? 'page' : undefined}>
                <span className="session-title">{name}</span>
                <span className="session-meta">
                  {s.model} · {relativeTime(s.lastActivityAt ?? s.createdAt)}
                  {s.activeTurnId ? ' · working' : ''}
                </span>
              </a>
              {confirming === s.id ? (
                <span className="confirm">
                  <button type="button" className="danger small" onClick={() => void remove(s.id)}>
                    Delete
                  </button>
                  <button type="button" className="secondary small" onClick={() => setConfirming(null)}>
                    Keep
                  </button>
                </span>
              ) : (
                <button type="button" className="icon" aria-label={`Delete session ${name}`} title="Delete" onClick={() => setConfirming(s.id)}>
                  ✕
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
