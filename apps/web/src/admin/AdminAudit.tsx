import type { AuditEntry, AuditKind, AuditQuery } from '@weft/contracts';
import { type FormEvent, useCallback, useEffect, useMemo, useState } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { saveBlob } from '../files/save-blob';
import { useLoad } from '../account/use-load';
import { auditDecision, auditOutcome, auditSubject } from './audit';

const PAGE = 100;

type Filter = Omit<AuditQuery, 'limit' | 'before'>;

/** The audit trail: every tool call (who, session, tool, arguments, decision, outcome) and admin action, newest first, filtered. */
export function AdminAudit({ account }: { account: AccountApi }) {
  const [filter, setFilter] = useState<Filter>({});
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const loadUsers = useCallback(() => account.users(), [account]);
  const { data: users } = useLoad(loadUsers);
  const names = useMemo(() => new Map(users?.map((u) => [u.id, u.name]) ?? []), [users]);
  // A deleted user's entries stay: they show by id.
  const userName = (id: string) => names.get(id) ?? id;

  const load = useCallback(
    async (before?: string) => {
      setLoading(true);
      setError(null);
      try {
        const page = await account.audit({ ...filter, limit: PAGE, before });
        setEntries((shown) => (before && shown ? [...shown, ...page.entries] : page.entries));
        setNext(page.next);
      } catch (err) {
        setError(err);
      } finally {
        setLoading(false);
      }
    },
    [account, filter],
  );
  useEffect(() => void load(), [load]);

  const download = () => {
    const lines = (entries ?? []).map((e) => `${JSON.stringify(e)}\n`).join('');
    saveBlob(new Blob([lines], { type: 'application/x-ndjson' }), 'weft-audit.jsonl');
  };

  return (
    <section className="card" aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit trail</h2>
      <p className="hint">Every tool call an agent made, who decided it and how it ended, and every admin action; newest first. A deleted user’s entries stay.</p>
      <AuditFilters users={users ?? []} onChange={setFilter} />
      <ErrorMessage error={error} />
      {entries === null && !error ? <p role="status">Loading…</p> : null}
      {entries && entries.length === 0 ? <p role="status">Nothing in the audit trail matches.</p> : null}
      {entries && entries.length > 0 ? (
        <div className="table-scroll">
          <table className="data audit">
            <caption className="visually-hidden">Audit trail</caption>
            <thead>
              <tr>
                <th scope="col">Time (UTC)</th>
                <th scope="col">User</th>
                <th scope="col">Session</th>
                <th scope="col">Action</th>
                <th scope="col">What</th>
                <th scope="col">Decision</th>
                <th scope="col">Outcome</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={`${e.kind}-${e.id}`}>
                  <td className="num">{e.at.slice(0, 19).replace('T', ' ')}</td>
                  <td>{userName(e.actor)}</td>
                  <td>{e.sessionId ?? '–'}</td>
                  <td>
                    <code>{e.action}</code>
                  </td>
                  <td className="model">{auditSubject(e, userName)}</td>
                  <td>{auditDecision(e, userName)}</td>
                  <td className={e.outcome && e.outcome !== 'ok' ? 'bad' : undefined}>{auditOutcome(e)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <div className="row wrap">
        {next ? (
          <button type="button" className="secondary" disabled={loading} onClick={() => void load(next)}>
            Show older
          </button>
        ) : null}
        <button type="button" className="secondary" disabled={!entries?.length} onClick={download}>
          Download JSONL
        </button>
        <span className="hint">The entries shown, one JSON object a line; `weft admin audit --all --format jsonl` exports everything.</span>
      </div>
    </section>
  );
}

function AuditFilters({ users, onChange }: { users: readonly { id: string; name: string }[]; onChange: (filter: Filter) => void }) {
  const [user, setUser] = useState('');
  const [session, setSession] = useState('');
  const [kind, setKind] = useState<AuditKind | ''>('');
  const [action, setAction] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = (value: string) => value.trim() || undefined;
    onChange({ user: text(user), session: text(session), kind: kind || undefined, action: text(action), from: text(from), to: text(to) });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Audit filters">
      <div className="field">
        <label htmlFor="audit-user">User</label>
        <select id="audit-user" value={user} onChange={(e) => setUser(e.target.value)}>
          <option value="">Everyone</option>
          {users.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-session">Session</label>
        <input id="audit-session" placeholder="ses_…" value={session} onChange={(e) => setSession(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="audit-kind">Kind</label>
        <select id="audit-kind" value={kind} onChange={(e) => setKind(e.target.value as AuditKind | '')}>
          <option value="">Everything</option>
          <option value="tool">Tool calls</option>
          <option value="admin">Admin actions</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-action">Action or tool</label>
        <input id="audit-action" placeholder="any" value={action} onChange={(e) => setAction(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="audit-from">From (UTC)</label>
        <input id="audit-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor="audit-to">To (UTC)</label>
        <input id="audit-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
      </div>
      <button type="submit">Show</button>
    </form>
  );
}
