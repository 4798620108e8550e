import { type AdminModel, ApiCaller, type PullLine, apiRoutes, pullLineSchema } from '@weft/contracts';
import { type FormEvent, useCallback, useMemo, useState } from 'react';
import { useLoad } from '../account/use-load';
import { ApiError } from '../api/api-error';
import { BrowserTransport } from '../api/client';
import { loadKey } from '../api/key-store';
import { ErrorMessage } from '../components/ErrorMessage';
import { modelsView } from './models-view';

/** A pull's state as the form shows it. */
interface PullState {
  phase: 'starting' | 'download' | 'verify' | 'done';
  file?: string;
  done: number;
  total?: number;
  model?: AdminModel;
}

const MiB = 1024 * 1024;
const size = (bytes: number | undefined) => (bytes === undefined ? '?' : bytes >= 1024 * MiB ? `${(bytes / 1024 / MiB).toFixed(2)} GiB` : `${(bytes / MiB).toFixed(1)} MiB`);

/** Reads the pull's NDJSON answer line by line; throws the `error` line's error. */
async function readPull(response: Response, onLine: (line: PullLine) => void): Promise<void> {
  if (!response.body) throw new Error('The gateway sent an empty answer');
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const text of lines.filter((l) => l.trim())) {
      const line = pullLineSchema.parse(JSON.parse(text));
      if (line.type === 'error') throw new ApiError(200, line.error.code, line.error.message, line.error.details);
      onLine(line);
    }
  }
}

/** The model registry: pull a GGUF (hf: or URL) with its progress, see and remove pulled models. */
export function ModelsPanel() {
  const api = useMemo(() => new ApiCaller(new BrowserTransport(loadKey() ?? '')), []);
  const load = useCallback(async () => (await api.json(apiRoutes.adminModels, {})).models, [api]);
  const { data: models, error, reload } = useLoad(load);
  const [source, setSource] = useState('');
  const [id, setId] = useState('');
  const [sha256, setSha256] = useState('');
  const [pull, setPull] = useState<PullState | null>(null);
  const [pullError, setPullError] = useState<unknown>(null);
  const [showTest, setShowTest] = useState(false);
  const view = useMemo(() => (models ? modelsView(models, showTest) : null), [models, showTest]);

  const onPull = async (event: FormEvent) => {
    event.preventDefault();
    setPullError(null);
    setPull({ phase: 'starting', done: 0 });
    try {
      const body = { source: source.trim(), ...(id.trim() ? { id: id.trim() } : {}), ...(sha256.trim() ? { sha256: sha256.trim() } : {}) };
      // A pull of gigabytes outlasts the transport's default deadline: no deadline here, the worker gives up on a stall.
      const response = await api.send(apiRoutes.pullModel, { body, signal: new AbortController().signal });
      await readPull(response, (line) =>
        setPull((state) => {
          const now = state ?? { phase: 'starting', done: 0 };
          switch (line.type) {
            case 'started':
              return { phase: 'download', file: line.file, done: line.resumedFrom, total: line.totalBytes };
            case 'progress':
              return { ...now, phase: 'download', done: line.downloadedBytes, total: line.totalBytes ?? now.total };
            case 'verifying':
              return { ...now, phase: 'verify', done: line.hashedBytes, total: line.totalBytes };
            case 'done':
              return { ...now, phase: 'done', model: line.model };
            case 'error':
              return now;
          }
        }),
      );
      reload();
    } catch (err) {
      setPull(null);
      setPullError(err);
    }
  };

  const remove = async (model: AdminModel) => {
    if (!window.confirm(`Remove ${model.id} and delete its file?`)) return;
    try {
      await api.json(apiRoutes.removeModel, { params: { id: model.id } });
      reload();
    } catch (err) {
      setPullError(err);
    }
  };

  const running = pull !== null && pull.phase !== 'done';
  return (
    <section className="card" aria-labelledby="models-heading">
      <div className="row wrap">
        <h2 id="models-heading">Models</h2>
        <button type="button" className="secondary small" onClick={reload}>
          Refresh
        </button>
      </div>
      <form className="stack" onSubmit={(e) => void onPull(e)} aria-label="Pull a model">
        <label>
          Source <span className="hint">hf:owner/repo/file.gguf or the URL of a .gguf</span>
          <input value={source} onChange={(e) => setSource(e.target.value)} required placeholder="hf:bartowski/Qwen2.5-Coder-7B-Instruct-GGUF/Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf" />
        </label>
        <div className="row wrap">
          <label>
            Id <span className="hint">(default: the file name)</span>
            <input value={id} onChange={(e) => setId(e.target.value)} />
          </label>
          <label>
            SHA-256 <span className="hint">(default: what the source publishes)</span>
            <input value={sha256} onChange={(e) => setSha256(e.target.value)} pattern="[A-Fa-f0-9]{64}" />
          </label>
        </div>
        <button type="submit" disabled={running || !source.trim()}>
          {running ? 'Pulling…' : 'Pull'}
        </button>
      </form>
      {pull ? (
        <p role="status">
          {pull.phase === 'done' && pull.model ? (
            <>
              Pulled <strong>{pull.model.id}</strong> ({size(pull.model.sizeBytes)}, context {pull.model.contextSize}, tool calls {pull.model.gguf?.toolCalls ? 'yes' : 'no'}): it is served now.
            </>
          ) : (
            <>
              {pull.phase === 'verify' ? 'Verifying the SHA-256 of' : pull.phase === 'download' ? 'Downloading' : 'Starting'} {pull.file ?? ''} · {size(pull.done)} of {size(pull.total)}{' '}
              <progress max={pull.total ?? undefined} value={pull.total ? pull.done : undefined} aria-label="Pull progress" />
            </>
          )}
        </p>
      ) : null}
      <ErrorMessage error={pullError} prefix="Pull failed:" />
      <ErrorMessage error={error} />
      {models === null && !error ? <p role="status">Loading…</p> : null}
      {view && (view.hidden > 0 || showTest) ? (
        <label className="row">
          <input type="checkbox" checked={showTest} onChange={(e) => setShowTest(e.target.checked)} />
          Show scripted and test models{view.hidden > 0 ? ` (${view.hidden} hidden)` : ''}
        </label>
      ) : null}
      {view && view.shown.length > 0 ? (
        <div className="table-scroll">
          <table className="data">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Origin</th>
                <th scope="col" className="num">
                  Context
                </th>
                <th scope="col" className="num">
                  Size
                </th>
                <th scope="col">Tool calls</th>
                <th scope="col">FIM</th>
                <th scope="col">Source</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {view.shown.map((model) => (
                <tr key={model.id}>
                  <th scope="row" className="model">
                    {model.id}
                  </th>
                  <td>{model.origin}</td>
                  <td className="num">{model.contextSize}</td>
                  <td className="num">{model.sizeBytes === undefined ? '-' : size(model.sizeBytes)}</td>
                  <td>{model.gguf ? (model.gguf.toolCalls ? 'yes' : 'no') : '-'}</td>
                  <td>{model.gguf ? (model.gguf.fim ? 'yes' : 'no') : '-'}</td>
                  <td className="hint">{model.source ?? model.file ?? model.provider}</td>
                  <td>
                    {model.origin === 'pulled' ? (
                      <button type="button" className="secondary small" onClick={() => void remove(model)}>
                        Remove
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
