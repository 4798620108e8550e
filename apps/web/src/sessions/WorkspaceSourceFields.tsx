import { type DragEvent, type ReactNode, useState } from 'react';
import type { Workspace } from '../api/schemas';
import { formatBytes } from '../time';
import { archiveKind } from '../upload/archive';
import { folderFromDrop, folderFromInput } from '../upload/pack-folder';
import type { Source, WorkspaceDraft } from './workspace-source';

interface Props {
  draft: WorkspaceDraft;
  onChange: (patch: Partial<WorkspaceDraft>) => void;
  /** A dropped folder that cannot be read. */
  onError: (error: unknown) => void;
  workspaces: readonly Workspace[];
  /** The hosts this server clones from; none hides the git source. */
  gitHosts: readonly string[];
}

/** The workspace part of the new-session form: a source to choose, and that source's fields. */
export function WorkspaceSourceFields({ draft, onChange, onError, workspaces, gitHosts }: Props) {
  const onDrop = async (event: DragEvent) => {
    event.preventDefault();
    try {
      // One archive file dropped is taken as an archive; anything else as a folder's files.
      const [only] = Array.from(event.dataTransfer.files);
      if (event.dataTransfer.files.length === 1 && only && archiveKind(only.name)) {
        onChange({ archive: only, source: 'archive' });
        return;
      }
      onChange({ folder: await folderFromDrop(event.dataTransfer.items), source: 'upload' });
    } catch (err) {
      onError(err);
    }
  };
  const choice = (source: Source, label: string, disabled = false) => (
    <label className="inline">
      <input type="radio" name="source" value={source} checked={draft.source === source} onChange={() => onChange({ source })} disabled={disabled} />
      {label}
    </label>
  );

  return (
    <fieldset>
      <legend>Workspace</legend>
      {choice('upload', 'Upload a folder from this computer')}
      {choice('archive', 'Upload an archive (.tar.gz, .tgz, .tar, .zip)')}
      {gitHosts.length > 0 ? choice('git', 'Import from git') : null}
      {choice('existing', `Use one of my workspaces${workspaces.length === 0 ? ' (none yet)' : ''}`, workspaces.length === 0)}

      {draft.source === 'git' ? (
        <GitFields draft={draft} onChange={onChange} gitHosts={gitHosts} />
      ) : draft.source === 'archive' ? (
        <DropZone onDrop={(event) => void onDrop(event)}>
          <ArchiveFields archive={draft.archive} onChange={onChange} />
        </DropZone>
      ) : draft.source === 'upload' ? (
        <DropZone onDrop={(event) => void onDrop(event)}>
          <FolderFields folder={draft.folder} onChange={onChange} />
        </DropZone>
      ) : (
        <>
          <label htmlFor="session-workspace">Existing workspace</label>
          <select id="session-workspace" value={draft.workspaceId} onChange={(event) => onChange({ workspaceId: event.target.value })}>
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
  );
}

function GitFields({ draft, onChange, gitHosts }: Pick<Props, 'draft' | 'onChange' | 'gitHosts'>) {
  return (
    <div className="stack">
      <label htmlFor="git-url">Repository URL</label>
      <input
        id="git-url"
        type="url"
        value={draft.gitUrl}
        placeholder={`https://${gitHosts[0] ?? 'git.example.com'}/team/project.git`}
        aria-describedby="git-hosts"
        onChange={(event) => onChange({ gitUrl: event.target.value })}
      />
      <p className="hint" id="git-hosts">
        This server clones from {gitHosts.join(', ')}: one branch, without its history; .git is left out.
      </p>
      <label htmlFor="git-ref">Branch or tag (optional)</label>
      <input id="git-ref" value={draft.gitRef} onChange={(event) => onChange({ gitRef: event.target.value })} maxLength={255} />
    </div>
  );
}

function ArchiveFields({ archive, onChange }: { archive: File | null; onChange: Props['onChange'] }) {
  return (
    <>
      <label htmlFor="archive-input">Choose an archive, or drop one here</label>
      <input
        id="archive-input"
        key="archive-input"
        type="file"
        accept=".tar.gz,.tgz,.tar,.zip,application/gzip,application/x-tar,application/zip"
        onChange={(event) => onChange({ archive: event.target.files?.[0] ?? null })}
      />
      {archive ? (
        <p className="hint" role="status">
          {archive.name}: {formatBytes(archive.size)}
        </p>
      ) : (
        <p className="hint">One folder that holds everything (as in a downloaded repository) is taken off; .git and node_modules are left out.</p>
      )}
    </>
  );
}

function FolderFields({ folder, onChange }: { folder: WorkspaceDraft['folder']; onChange: Props['onChange'] }) {
  const size = folder?.files.reduce((sum, f) => sum + f.file.size, 0) ?? 0;
  return (
    <>
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
        onChange={(event) => event.target.files && onChange({ folder: folderFromInput(event.target.files) })}
      />
      {folder ? (
        <p className="hint" role="status">
          {folder.name}: {folder.files.length} files, {formatBytes(size)}
          {folder.skipped ? ` (${folder.skipped} in .git or node_modules left out)` : ''}
        </p>
      ) : (
        <p className="hint">.git and node_modules are left out. Files arrive without their executable bit.</p>
      )}
    </>
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
