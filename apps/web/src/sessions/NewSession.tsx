import { type DragEvent, type FormEvent, useEffect, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ModelInfo, Workspace } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatBytes } from '../time';
import { type PickedFolder, folderFromDrop, folderFromInput, packFolder } from '../upload/pack-folder';

type Source = 'upload' | 'existing';

/** A new session: a model and a workspace, uploaded from a folder here or one already on the server. */
export function NewSession({ api, onCreated }: { api: ApiClient; onCreated: (sessionId: string) => void }) {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [model, setModel] = useState('');
  const [title, setTitle] = useState('');
  const [source, setSource] = useState<Source>('upload');
  const [folder, setFolder] = useState<PickedFolder | null>(null);
  const [workspaceId, setWorkspaceId] = useState('');
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [dragging, setDragging] = useState(false);
  const folderInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (folderInput.current) folderInput.current.webkitdirectory = true;
    Promise.all([api.models(), api.workspaces()]).then(
      ([m, w]) => {
        setModels(m);
        setModel((current) => current || m[0]?.id || '');
        setWorkspaces(w);
        setWorkspaceId((current) => current || w[0]?.id || '');
      },
      (err: unknown) => setError(err),
    );
  }, [api]);

  const onDrop = async (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    try {
      setFolder(await folderFromDrop(event.dataTransfer.items));
      setSource('upload');
    } catch (err) {
      setError(err);
    }
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    try {
      let id = workspaceId;
      if (source === 'upload') {
        if (!folder || folder.files.length === 0) throw new Error('Choose a folder with at least one file to upload.');
        setProgress(`Packing ${folder.files.length} files…`);
        const archive = await packFolder(folder);
        setProgress(`Uploading ${formatBytes(archive.size)}…`);
        id = await api.uploadWorkspace(archive, folder.name);
      } else if (!id) throw new Error('Choose a workspace.');
      setProgress('Creating the session…');
      onCreated(await api.createSession({ workspaceId: id, model, ...(title.trim() ? { title: title.trim() } : {}) }));
    } catch (err) {
      setError(err);
      setProgress(null);
    }
  };

  const size = folder?.files.reduce((sum, f) => sum + f.file.size, 0) ?? 0;
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

        <fieldset>
          <legend>Workspace</legend>
          <label className="inline">
            <input type="radio" name="source" value="upload" checked={source === 'upload'} onChange={() => setSource('upload')} />
            Upload a folder from this computer
          </label>
          <label className="inline">
            <input
              type="radio"
              name="source"
              value="existing"
              checked={source === 'existing'}
              onChange={() => setSource('existing')}
              disabled={workspaces.length === 0}
            />
            Use one of my workspaces{workspaces.length === 0 ? ' (none yet)' : ''}
          </label>

          {source === 'upload' ? (
            <div
              className={`dropzone${dragging ? ' dragging' : ''}`}
              onDragOver={(event) => {
                event.preventDefault();
                setDragging(true);
              }}
              onDragLeave={() => setDragging(false)}
              onDrop={(event) => void onDrop(event)}
            >
              <label htmlFor="folder-input">Choose a folder, or drop one here</label>
              <input
                id="folder-input"
                ref={folderInput}
                type="file"
                multiple
                onChange={(event) => event.target.files && setFolder(folderFromInput(event.target.files))}
              />
              {folder ? (
                <p className="hint" role="status">
                  {folder.name}: {folder.files.length} files, {formatBytes(size)}
                  {folder.skipped ? ` (${folder.skipped} in .git or node_modules left out)` : ''}
                </p>
              ) : (
                <p className="hint">.git and node_modules are left out. Files arrive without their executable bit.</p>
              )}
            </div>
          ) : (
            <>
              <label htmlFor="session-workspace">Existing workspace</label>
              <select id="session-workspace" value={workspaceId} onChange={(event) => setWorkspaceId(event.target.value)}>
                {workspaces.map((w) => (
                  <option key={w.id} value={w.id}>
                    {w.name} · {w.id}
                    {w.files !== undefined ? ` · ${w.files} files` : ''}
                  </option>
                ))}
              </select>
            </>
          )}
        </fieldset>

        <button type="submit" disabled={progress !== null || !model}>
          Create session
        </button>
        {progress ? <p role="status">{progress}</p> : null}
        <ErrorMessage error={error} />
      </form>
    </section>
  );
}
