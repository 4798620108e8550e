import { type FormEvent, useCallback, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { Note } from '../api/schemas';
import { useLoad } from '../account/use-load';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { relativeTime } from '../time';

/** The gateway's cap on one note (the agent's `remember` tool has the same). */
const MAX_NOTE_CHARS = 1000;

/**
 * The workspace's shared notes (what `/memory` shows in the CLI): every model working in the
 * workspace reads them. Reloaded after each turn (`version`), since the agent may have saved one.
 */
export function NotesPanel({ api, workspaceId, version }: { api: ApiClient; workspaceId: string; version: number }) {
  const [text, setText] = useState('');
  /** Open or closed by the reader; until then open only when there are notes, so none leave the files room. */
  const [shown, setShown] = useState<boolean | null>(null);

  // `version` is a dependency so that a finished turn reloads them.
  const load = useCallback((): Promise<Note[]> => api.notes(workspaceId), [api, workspaceId, version]); // eslint-disable-line react-hooks/exhaustive-deps
  const { data: notes, error: loadError, reload } = useLoad(load);
  const { busy, error, run: act } = useAction(async (action: () => Promise<unknown>) => {
    await action();
    reload();
  });

  const add = (event: FormEvent) => {
    event.preventDefault();
    const note = text.trim();
    if (!note) return;
    void act(async () => {
      await api.addNote(workspaceId, note);
      setText('');
    });
  };

  return (
    <section className="side-section" aria-label="Notes">
      <details open={shown ?? (notes !== null && notes.length > 0)} onToggle={(event) => setShown(event.currentTarget.open)}>
        <summary>
          <h2>Notes {notes ? <span className="hint">({notes.length})</span> : null}</h2>
        </summary>
        <p className="hint">Every model working in this workspace reads these.</p>
        {notes && notes.length === 0 ? <p className="hint">No notes yet.</p> : null}
        <ul className="notes">
          {notes?.map((note) => (
            <li key={note.id} data-note-id={note.id}>
              <p className="note-text">{note.text}</p>
              <p className="hint">
                {note.source === 'user' ? 'You' : note.author} · {relativeTime(note.createdAt)}{' '}
                <button type="button" className="secondary small" disabled={busy} onClick={() => void act(() => api.deleteNote(workspaceId, note.id))} aria-label={`Delete the note "${note.text.slice(0, 40)}"`}>
                  Delete
                </button>
              </p>
            </li>
          ))}
        </ul>
        <form onSubmit={add} className="stack">
          <label htmlFor="note-text">Add a note</label>
          <textarea id="note-text" rows={2} maxLength={MAX_NOTE_CHARS} value={text} onChange={(event) => setText(event.target.value)} />
          <div className="row">
            <button type="submit" className="small" disabled={busy || !text.trim()}>
              Add note
            </button>
            {notes && notes.length > 0 ? (
              <button
                type="button"
                className="secondary small"
                disabled={busy}
                onClick={() => window.confirm(`Delete all ${notes.length} notes of this workspace?`) && void act(() => api.clearNotes(workspaceId))}
              >
                Clear all
              </button>
            ) : null}
          </div>
        </form>
        <ErrorMessage error={loadError} />
        <ErrorMessage error={error} />
      </details>
    </section>
  );
}
