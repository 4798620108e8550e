import { type DragEvent, type FormEvent, type ReactNode, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ModelInfo, Workspace } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatBytes } from '../time';
import { archiveBaseName, archiveForUpload, archiveKind } from '../upload/archive';
import { type PickedFolder, folderFromDrop, folderFromInput, packFolder } from '../upload/pack-folder';

type Source = 'upload' | 'archive' | 'git' | 'existing';

/**
 * A new session: a model and a workspace, uploaded from a folder or an archive here, cloned from
 * git where the server allows it, or one already on the server.
 */
export function NewSession({ api, onCreated }: { api: ApiClient; onCreated: (sessionId: string) => void }) {
  const [models, setModels] = useState<ModelInfo[] | null>(null);
  const [workspaces, setWorkspaces] = useState<Workspace[]>([]);
  const [model, setModel] = useState('');
  const [title, setTitle] = useState('');
  const [source, setSource] = useState<Source>('upload');
  const [folder, setFolder] = useState<PickedFolder | null>(null);
  const [archive, setArchive] = useState<File | null>(null);
  const [gitHosts, setGitHosts] = useState<string[]>([]);
  const [gitUrl, setGitUrl] = useState('');
  const [gitRef, setGitRef] = useState('');
  const [workspaceId, setWorkspaceId] = useState('');
  const [progress, setProgress] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    Promise.all([api.models(), api.workspaces(), api.settings()]).then(
      ([m, w, settings]) => {
        setGitHosts(settings.gitImportHosts);
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
    try {
      // One archive file dropped is taken as an archive; anything else as a folder's files.
      const [only] = Array.from(event.dataTransfer.files);
      if (event.dataTransfer.files.length === 1 && only && archiveKind(only.name)) {
        setArchive(only);
        setSource('archive');
        return;
      }
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
      } else if (source === 'archive') {
        if (!archive) throw new Error('Choose an archive (.tar.gz, .tgz, .tar or .zip) to upload.');
        setProgress(`Reading ${archive.name}…`);
        const packed = await archiveForUpload(archive);
        setProgress(`Uploading ${formatBytes(packed.size)}…`);
        id = await api.uploadWorkspace(packed, archiveBaseName(archive.name));
      } else if (source === 'git') {
        if (!gitUrl.trim()) throw new Error('Give the repository URL to clone.');
        setProgress(`Cloning ${gitUrl.trim()}…`);
        id = await api.importWorkspace({ url: gitUrl.trim(), ...(gitRef.trim() ? { ref: gitRef.trim() } : {}) });
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
            <input type="radio" name="source" value="archive" checked={source === 'archive'} onChange={() => setSource('archive')} />
            Upload an archive (.tar.gz, .tgz, .tar, .zip)
          </label>
          {gitHosts.length > 0 ? (
            <label className="inline">
              <input type="radio" name="source" value="git" checked={source === 'git'} onChange={() => setSource('git')} />
              Import from git
            </label>
          ) : null}
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

          {source === 'git' ? (
            <div className="stack">
              <label htmlFor="git-url">Repository URL</label>
              <input
                id="git-url"
                type="url"
                value={gitUrl}
                placeholder={`https://${gitHosts[0] ?? 'git.example.com'}/team/project.git`}
                aria-describedby="git-hosts"
                onChange={(event) => setGitUrl(event.target.value)}
              />
              <p className="hint" id="git-hosts">
                This server clones from {gitHosts.join(', ')}: one branch, without its history; .git is left out.
              </p>
              <label htmlFor="git-ref">Branch or tag (optional)</label>
              <input id="git-ref" value={gitRef} onChange={(event) => setGitRef(event.target.value)} maxLength={255} />
            </div>
          ) : source === 'archive' ? (
            <DropZone onDrop={(event) => void onDrop(event)}>
              <label htmlFor="archive-input">Choose an archive, or drop one here</label>
              <input
                id="archive-input"
                key="archive-input"
                type="file"
                accept=".tar.gz,.tgz,.tar,.zip,application/gzip,application/x-tar,application/zip"
                onChange={(event) => setArchive(event.target.files?.[0] ?? null)}
              />
              {archive ? (
                <p className="hint" role="status">
                  {archive.name}: {formatBytes(archive.size)}
                </p>
              ) : (
                <p className="hint">One folder that holds everything (as in a downloaded repository) is taken off; .git and node_modules are left out.</p>
              )}
            </DropZone>
          ) : source === 'upload' ? (
            <DropZone onDrop={(event) => void onDrop(event)}>
              <label htmlFor="folder-input">Choose a folder, or drop one here</label>
              <input
                id="folder-input"
                key="folder-input"
                // Set on the element itself (React has no prop for it), each time it is made.
                ref={(input) => {
                  if (input) input.webkitdirectory = true;
                }}
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
            </DropZone>
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

/** Where a folder or an archive can be dropped; marked while something is dragged over it. */
function DropZone({ onDrop, children }: { onDrop: (event: DragEvent) => void; children: ReactNode }) {
  const [dragging, setDragging] = useState(false);
  return (
    <div
      className={`dropzone${dragging ? ' dragging' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(event) => {
        setDragging(false);
        onDrop(event);
      }}
    >
      {children}
    </div>
  );
}
