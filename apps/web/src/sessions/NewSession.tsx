import { type FormEvent, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ModelInfo, Workspace } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { WorkspaceSourceFields } from './WorkspaceSourceFields';
import { type WorkspaceDraft, emptyDraft, workspaceFor } from './workspace-source';

/**
 * A new session: a model and a workspace, uploaded from a folder or an archive here, cloned from
 * git where the server allows it, or one already on the server.
 */
export function NewSession({ api, onCreated }: { api: ApiClient; onCreated: (sessionId: string) => void }) {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [gitHosts, setGitHosts] = useState<string[]>([]);
  const [model, setModel] = useState('');
  const [title, setTitle] = useState('');
  const [draft, setDraft] = useState<WorkspaceDraft>(emptyDraft);
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const update = (patch: Partial<WorkspaceDraft>) => setDraft((current) => ({ ...current, ...patch }));

  useEffect(() => {
    Promise.all([api.models(), api.workspaces(), api.settings()]).then(
      ([m, w, settings]) => {
        setGitHosts(settings.gitImportHosts);
        setModels(m);
        setModel((current) => current || m[0]?.id || '');
        setWorkspaces(w);
        setDraft((current) => ({ ...current, workspaceId: current.workspaceId || w[0]?.id || '' }));
      },
      (err: unknown) => setError(err),
    );
  }, [api]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      const workspaceId = await workspaceFor(api, draft, setProgress);
      setProgress('Creating the session…');
      onCreated(await api.createSession({ workspaceId, model, ...(title.trim() ? { title: title.trim() } : {}) }));
    } catch (err) {
      setError(err);
      setProgress(null);
    }
  };

  return (
    <section className="new-session-form">
      <h1>New session</h1>
      <form onSubmit={(event) => void submit(event)} className="stack">
        <label htmlFor="session-model">Model</label>
        <select id="session-model" value={model} onChange={(event) => setModel(event.target.value)} disabled={!models} required>
          {models?.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id} ({m.provider})
            </option>
          ))}
        </select>

        <label htmlFor="session-title">Title (optional)</label>
        <input id="session-title" value={title} onChange={(event) => setTitle(event.target.value)} maxLength={200} />

        <WorkspaceSourceFields draft={draft} onChange={update} onError={setError} workspaces={workspaces} gitHosts={gitHosts} />

        <button type="submit" disabled={progress !== null || !model}>
          Create session
        </button>
        {progress ? <p role="status">{progress}</p> : null}
        <ErrorMessage error={error} />
      </form>
    </section>
  );
}
