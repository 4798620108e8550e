import { useCallback } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { relativeTime } from '../time';
import { formatInstant } from '../account/format';
import { useLoad } from '../account/use-load';
import { describeGpu, heartbeatAgeSeconds, summarizeFleet } from './fleet';

/** The inference workers this gateway hears from: where, what they serve, how busy. */
export function FleetPanel({ account }: { account: AccountApi }) {
  const load = useCallback(() => account.fleet(), [account]);
  const { data: workers, error, reload } = useLoad(load);
  const summary = workers ? summarizeFleet(workers) : null;

  return (
    <section className="card" aria-labelledby="fleet-heading">
      <div className="row wrap">
        <h2 id="fleet-heading">Inference fleet</h2>
        <button type="button" className="secondary small" onClick={reload}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={error} />
      {workers === null && !error ? <p role="status">Loading…</p> : null}
      {summary ? (
        <p role="status">
          {summary.workers} worker{summary.workers === 1 ? '' : 's'}
          {summary.notReady ? ` (${summary.notReady} not ready)` : ''} · models loaded: {summary.models.join(', ') || 'none'} · {summary.freeSequences} free sequences ·{' '}
          {summary.queued} queued · {summary.inFlight} in flight
        </p>
      ) : null}
      {workers?.length === 0 ? <p className="hint">No inference worker has announced itself: turns cannot run until one does.</p> : null}
      <ul className="workers">
        {workers?.map((worker) => {
          const age = heartbeatAgeSeconds(worker.lastHeartbeatAt);
          return (
            <li key={worker.workerId} className="worker" data-worker-id={worker.workerId}>
              <h3>
                {worker.workerId} <span className={`tag ${worker.status === 'ready' ? 'ok' : 'danger'}`}>{worker.status}</span>
              </h3>
              <p className="hint">
                {worker.host ?? 'unknown host'} · {describeGpu(worker.gpu)} · started {relativeTime(worker.startedAt)} ·{' '}
                <span title={formatInstant(worker.lastHeartbeatAt)}>last heartbeat {age === null ? '?' : `${age} s ago`}</span> · {worker.inFlight} in flight
                {worker.memory ? ` · models take ${mib(worker.memory.usedBytes)} of ${mib(worker.memory.budgetBytes)}` : ''}
              </p>
              <div className="table-scroll">
                <table className="data">
                  <caption className="visually-hidden">Models of {worker.workerId}</caption>
                  <thead>
                    <tr>
                      <th scope="col">Model</th>
                      <th scope="col">State</th>
                      <th scope="col" className="num">
                        Memory
                      </th>
                      <th scope="col" className="num">
                        Free / sequences
                      </th>
                      <th scope="col" className="num">
                        Queued
                      </th>
                      <th scope="col" className="num">
                        Cached sessions
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {worker.models.map((model) => (
                      <tr key={model.id}>
                        <th scope="row" className="model">
                          {model.id}
                        </th>
                        <td>
                          {model.state ?? (model.loaded ? 'loaded' : 'unloaded')}
                          {model.pinned ? ' (pinned)' : ''}
                        </td>
                        <td className="num">{model.memoryBytes == null ? '-' : mib(model.memoryBytes)}</td>
                        <td className="num">
                          {model.freeSequences} / {model.sequences ?? '?'}
                        </td>
                        <td className="num">{model.queued}</td>
                        <td className="num">{model.cachedSessions}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
