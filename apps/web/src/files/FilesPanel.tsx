import { useCallback, useEffect, useRef, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { FileEntry } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { FileViewer } from './FileViewer';
import { saveBlob } from './save-blob';
import { splitToolFolders } from './tool-folders';

type Folders = Record<string, FileEntry[]>;
const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);
const order = (a: FileEntry, b: FileEntry) => Number(b.type === 'directory') - Number(a.type === 'directory') || a.name.localeCompare(b.name);

/**
 * The session's workspace: a tree that reloads whenever the agent may have changed files
 * (`version`), the files the latest turn changed marked, a viewer, and the patch and archive.
 */
export function FilesPanel({ api, workspaceId, version, changed }: { api: ApiClient; workspaceId: string; version: number; changed: string[] }) {
  const [folders, setFolders] = useState<Folders>({});
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(['']));
  /** Folders whose tool and cache folders are shown (folded by default). */
  const [toolsShown, setToolsShown] = useState<Set<string>>(() => new Set());
  const [open, setOpen] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const expandedRef = useRef(expanded);
  expandedRef.current = expanded;

  const load = useCallback(
    async (paths: string[]) => {
      try {
        const listed = await Promise.all(paths.map(async (path) => [path, (await api.folder(workspaceId, path)).sort(order)] as const));
        setFolders((current) => ({ ...current, ...Object.fromEntries(listed) }));
        setError(null);
      } catch (err) {
        setError(err);
      }
    },
    [api, workspaceId],
  );

  // Every expanded folder again, after each change the timeline reports.
  useEffect(() => {
    void load([...expandedRef.current]);
  }, [load, version]);

  const toggle = (path: string) => {
    const next = new Set(expanded);
    if (next.has(path)) next.delete(path);
    else {
      next.add(path);
      void load([path]);
    }
    setExpanded(next);
  };

  const download = async (what: 'patch' | 'archive') => {
    setNotice(null);
    try {
      if (what === 'patch') {
        const patch = await api.patch(workspaceId);
        if (patch === '') setNotice('Nothing has changed since the upload: the patch is empty.');
        else saveBlob(new Blob([patch], { type: 'text/x-diff' }), `${workspaceId}.patch`);
      } else saveBlob(await api.archive(workspaceId), `${workspaceId}.tar.gz`);
    } catch (err) {
      setError(err);
    }
  };

  const changedSet = new Set(changed);
  const changedInside = (dir: string) => changed.some((p) => p.startsWith(`${dir}/`));

  const toggleTools = (dir: string) => {
    const next = new Set(toolsShown);
    if (next.has(dir)) next.delete(dir);
    else next.add(dir);
    setToolsShown(next);
  };

  const renderEntry = (dir: string, entry: FileEntry, depth: number) => {
    const path = join(dir, entry.name);
    const isDir = entry.type === 'directory';
    const isOpen = expanded.has(path);
    const mark = isDir ? changedInside(path) : changedSet.has(path);
    return (
      <li key={path} data-path={path} data-changed={mark || undefined}>
        <button
          type="button"
          aria-expanded={isDir ? isOpen : undefined}
          aria-current={open === path ? 'true' : undefined}
          className={`tree-entry${mark ? ' changed' : ''}`}
          style={{ paddingLeft: `${0.5 + depth}rem` }}
          onClick={() => (isDir ? toggle(path) : setOpen(path))}
        >
          <span aria-hidden="true">{isDir ? (isOpen ? '▾ ' : '▸ ') : '  '}</span>
          {entry.name}
          {isDir ? '/' : ''}
          {mark ? <span className="visually-hidden"> (changed by the last turn)</span> : null}
        </button>
        {isDir && isOpen ? renderFolder(path, depth + 1) : null}
      </li>
    );
  };

  // Weft's .weft/ and tools' caches (.pytest_cache/, __pycache__/, node_modules/) come last, folded.
  const renderFolder = (dir: string, depth: number) => {
    const { project, tools } = splitToolFolders(folders[dir] ?? []);
    const shown = toolsShown.has(dir);
    return (
      <ul aria-label={depth === 0 ? 'Workspace files' : undefined} className="tree">
        {project.map((entry) => renderEntry(dir, entry, depth))}
        {tools.length > 0 ? (
          <li className="tree-tools" data-tool-folders={dir}>
            <button type="button" aria-expanded={shown} className="tree-entry tree-group" style={{ paddingLeft: `${0.5 + depth}rem` }} onClick={() => toggleTools(dir)}>
              <span aria-hidden="true">{shown ? '▾ ' : '▸ '}</span>
              {tools.length} tool and cache {tools.length === 1 ? 'folder' : 'folders'}
              {shown ? null : <span className="tree-group-names">: {tools.map((e) => e.name).join(', ')}</span>}
            </button>
            {shown ? <ul className="tree">{tools.map((entry) => renderEntry(dir, entry, depth + 1))}</ul> : null}
          </li>
        ) : null}
      </ul>
    );
  };

  return (
    <aside className="files" aria-label="Workspace">
      <header className="files-head">
        <h2>Files</h2>
        <div className="row wrap">
          <button type="button" className="secondary small" onClick={() => void load([...expanded])}>
            Refresh
          </button>
          <button type="button" className="small" onClick={() => void download('patch')}>
            Download patch
          </button>
          <button type="button" className="secondary small" onClick={() => void download('archive')}>
            Download archive
          </button>
        </div>
      </header>
      <ErrorMessage error={error} />
      {notice ? (
        <p className="hint" role="status">
          {notice}
        </p>
      ) : null}
      {folders[''] ? renderFolder('', 0) : <p role="status">Loading files…</p>}
      {open ? <FileViewer api={api} workspaceId={workspaceId} path={open} version={version} onClose={() => setOpen(null)} /> : null}
    </aside>
  );
}
