import { useCallback, useMemo, useState } from 'react';
import type { AccountApi, UsageFilter } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { saveBlob } from '../files/save-blob';
import { formatDuration } from '../time';
import { formatCount } from '../account/format';
import { lastDays, modelsOf, usageByUser } from '../account/usage';
import { UsageRangeForm } from '../account/UsageRangeForm';
import { UsageTable } from '../account/UsageTable';
import { useLoad } from '../account/use-load';

/** Every user's usage over a range, narrowed to a user or a model, and the same as CSV. */
export function AdminUsage({ account }: { account: AccountApi }) {
  const [filter, setFilter] = useState<UsageFilter>(() => lastDays(30));
  const [user, setUser] = useState('');
  const [model, setModel] = useState('');
  const loadUsage = useCallback(() => account.allUsage(filter), [account, filter]);
  const loadUsers = useCallback(() => account.users(), [account]);
  const { data: usage, error } = useLoad(loadUsage);
  const { data: users } = useLoad(loadUsers);
  const [downloadError, setDownloadError] = useState<unknown>(null);
  const [downloading, setDownloading] = useState(false);

  const names = useMemo(() => new Map(users?.map((u) => [u.id, u.name]) ?? []), [users]);
  // A deleted user's rows stay: they show by id.
  const userName = useCallback((id: string) => names.get(id) ?? id, [names]);

  const download = async () => {
    setDownloading(true);
    setDownloadError(null);
    try {
      saveBlob(await account.allUsageCsv(filter), `weft-usage-${filter.from}-${filter.to}.csv`);
    } catch (err) {
      setDownloadError(err);
    } finally {
      setDownloading(false);
    }
  };

  return (
    <section className="card" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage of all users</h2>
      <UsageRangeForm range={filter} onChange={(range) => setFilter({ ...range, user: user || undefined, model: model.trim() || undefined })}>
        <div className="field">
          <label htmlFor="usage-user">User</label>
          <select id="usage-user" value={user} onChange={(e) => setUser(e.target.value)}>
            <option value="">Everyone</option>
            {users?.map((u) => (
              <option key={u.id} value={u.id}>
                {u.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="usage-model">Model</label>
          <input id="usage-model" list="usage-models" placeholder="any" value={model} onChange={(e) => setModel(e.target.value)} />
          <datalist id="usage-models">
            {modelsOf(usage?.rows ?? []).map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </div>
      </UsageRangeForm>
      <div className="row wrap">
        <button type="button" className="secondary" disabled={downloading} onClick={() => void download()}>
          Download CSV
        </button>
        <span className="hint">The rows shown, with every counter, one line per day, user and model.</span>
      </div>
      <ErrorMessage error={downloadError} prefix="No download." />
      <ErrorMessage error={error} />
      {usage === null && !error ? <p role="status">Loading…</p> : null}
      {usage ? (
        <>
          <p className="hint" role="status">
            {usage.from} to {usage.to}, UTC days{filter.user ? `, ${userName(filter.user)}` : ''}
            {filter.model ? `, ${filter.model}` : ''}.
          </p>
          {usage.rows.length > 0 && !filter.user ? (
            <>
              <h3>By user</h3>
              <div className="table-scroll">
                <table className="data by-user">
                  <caption className="visually-hidden">Usage by user</caption>
                  <thead>
                    <tr>
                      <th scope="col">User</th>
                      <th scope="col" className="num">
                        Turns
                      </th>
                      <th scope="col" className="num">
                        Quota tokens
                      </th>
                      <th scope="col" className="num">
                        Sandbox time
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {usageByUser(usage.rows).map((u) => (
                      <tr key={u.userId}>
                        <th scope="row">{userName(u.userId)}</th>
                        <td className="num">{formatCount(u.turns)}</td>
                        <td className="num">{formatCount(u.tokens)}</td>
                        <td className="num">{u.sandboxMs ? formatDuration(u.sandboxMs) : '0'}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <h3>By day and model</h3>
            </>
          ) : null}
          <UsageTable rows={usage.rows} totals={usage.totals} caption={`Usage from ${usage.from} to ${usage.to}`} userName={userName} />
        </>
      ) : null}
    </section>
  );
}
