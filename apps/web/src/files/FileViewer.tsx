import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import { CodeView } from '../components/CodeView';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatBytes } from '../time';
import { changedLines } from './changed-lines';

/** Past this, the viewer offers no preview (the archive download has the file). */
const MAX_PREVIEW_BYTES = 1024 * 1024;

type Loaded = { text: string } | { binary: number } | { tooLarge: number };

/** One file of the workspace, reloaded when the agent may have changed it. */
export function FileViewer({ api, workspaceId, path, version, onClose }: { api: ApiClient; workspaceId: string; path: string; version: number; onClose: () => void }) {
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [changed, setChanged] = useState<ReadonlySet<number>>(new Set());
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    let live = true;
    setError(null);
    api
      .file(workspaceId, path)
      .then(async (blob): Promise<Loaded> => {
        if (blob.size > MAX_PREVIEW_BYTES) return { tooLarge: blob.size };
        const bytes = new Uint8Array(await blob.arrayBuffer());
        if (bytes.includes(0)) return { binary: blob.size };
        return { text: new TextDecoder().decode(bytes) };
      })
      .then(
        (result) => live && setLoaded(result),
        (err: unknown) => live && setError(err),
      );
    // The lines the workspace's patch adds or changes; without it the viewer just marks none.
    api.patch(workspaceId).then(
      (patch) => live && setChanged(changedLines(patch, path)),
      () => live && setChanged(new Set()),
    );
    return () => {
      live = false;
    };
  }, [api, workspaceId, path, version]);

  return (
    <section className="viewer" aria-label={`File ${path}`}>
      <header className="row">
        <h3>{path}</h3>
        <button type="button" className="secondary small" onClick={onClose} aria-label={`Close ${path}`}>
          Close
        </button>
      </header>
      <ErrorMessage error={error} />
      {loaded === null && !error ? <p role="status">Loading…</p> : null}
      {loaded && 'text' in loaded && changed.size > 0 ? (
        <p className="hint">
          {changed.size} {changed.size === 1 ? 'line' : 'lines'} added or changed since upload, marked beside the line numbers.
        </p>
      ) : null}
      {loaded && 'text' in loaded ? <CodeView path={path} text={loaded.text} changed={changed} /> : null}
      {loaded && 'binary' in loaded ? <p className="hint">A binary file ({formatBytes(loaded.binary)}): no preview.</p> : null}
      {loaded && 'tooLarge' in loaded ? <p className="hint">{formatBytes(loaded.tooLarge)}: too large to preview here.</p> : null}
    </section>
  );
}
