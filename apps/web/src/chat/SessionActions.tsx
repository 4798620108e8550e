import { type FormEvent, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { Session } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { saveBlob } from '../files/save-blob';

/** Rename the session (an empty title clears it) and export its conversation as Markdown or JSONL. */
export function SessionActions({ api, session, onRenamed }: { api: ApiClient; session: Session; onRenamed: (title: string | null) => void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const startEditing = () => {
    setDraft(session.title ?? '');
    setError(null);
    setEditing(true);
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const title = draft.trim() || null;
    setSaving(true);
    setError(null);
    try {
      await api.renameSession(session.id, title);
      onRenamed(title);
      setEditing(false);
    } catch (err) {
      setError(err);
    } finally {
      setSaving(false);
    }
  };

  const exportAs = async (format: 'markdown' | 'jsonl') => {
    setError(null);
    try {
      saveBlob(await api.exportSession(session.id, format), `${session.id}.${format === 'markdown' ? 'md' : 'jsonl'}`);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <span className="session-actions">
      {editing ? (
        <form className="rename" onSubmit={(e) => void save(e)}>
          <input aria-label="Session title" value={draft} maxLength={200} onChange={(e) => setDraft(e.target.value)} autoFocus />
          <button type="submit" className="small" disabled={saving}>
            Save
          </button>
          <button type="button" className="secondary small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="secondary small" onClick={startEditing}>
          Rename
        </button>
      )}
      <button type="button" className="secondary small" onClick={() => void exportAs('markdown')}>
        Export Markdown
      </button>
      <button type="button" className="secondary small" onClick={() => void exportAs('jsonl')}>
        Export JSONL
      </button>
      <ErrorMessage error={error} />
    </span>
  );
}
