import { type FormEvent, useCallback, useState } from 'react';
import type { UserRole } from '@weft/contracts';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { adminUserHref, navigate } from '../route';
import { relativeTime } from '../time';
import { formatInstant } from '../account/format';
import { useLoad } from '../account/use-load';

export function roleFromText(roleFrom: 'provider' | 'weft'): string {
  return roleFrom === 'provider' ? 'set by their groups at the identity provider (WEFT_OIDC_ADMIN_GROUPS)' : 'set in Weft (at creation or by an admin)';
}

/** Every user with their role (and whether their groups set it), their groups at the identity provider, state and keys; a new user goes to their page to get a first key. */
export function UsersPanel({ account }: { account: AccountApi }) {
  const load = useCallback(() => account.users(), [account]);
  const { data: users, error } = useLoad(load);
  const [name, setName] = useState('');
  const [role, setRole] = useState<UserRole>('member');
  const {
    busy,
    error: createError,
    run,
  } = useAction(async () => {
    const user = await account.createUser(name.trim(), role);
    navigate(adminUserHref(user.id));
  });

  const create = (event: FormEvent) => {
    event.preventDefault();
    void run();
  };

  return (
    <>
      <section className="card" aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <ErrorMessage error={error} />
        {users === null && !error ? <p role="status">Loading…</p> : null}
        {users?.length === 0 ? <p className="hint">No users yet.</p> : null}
        {users?.length ? (
          <div className="table-scroll">
            <table className="data users">
              <caption className="visually-hidden">Users</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Groups</th>
                  <th scope="col">State</th>
                  <th scope="col" className="num">
                    Keys
                  </th>
                  <th scope="col">Last key use</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {users.map((user) => {
                  const lastUse = user.keys.map((k) => k.lastUsedAt ?? '').sort().at(-1) || null;
                  return (
                    <tr key={user.id} data-user-id={user.id}>
                      <th scope="row">
                        <a href={adminUserHref(user.id)}>{user.name}</a>
                      </th>
                      <td title={user.sso ? roleFromText(user.sso.roleFrom) : undefined}>
                        {user.role}
                        {user.sso?.roleFrom === 'provider' ? <span className="tag">from groups</span> : null}
                      </td>
                      <td>{user.sso ? user.sso.groups.join(', ') || 'none' : <span className="hint">not signed in through SSO</span>}</td>
                      <td>{user.disabled ? <span className="tag danger">disabled</span> : 'enabled'}</td>
                      <td className="num">{user.keys.length}</td>
                      <td title={formatInstant(lastUse)}>{lastUse ? relativeTime(lastUse) : 'never'}</td>
                      <td title={formatInstant(user.createdAt)}>{relativeTime(user.createdAt)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>
      <section className="card" aria-labelledby="new-user-heading">
        <h2 id="new-user-heading">New user</h2>
        <form className="key-form" onSubmit={(event) => void create(event)}>
          <div className="field">
            <label htmlFor="new-user-name">Name</label>
            <input id="new-user-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="new-user-role">Role</label>
            <select id="new-user-role" value={role} onChange={(e) => setRole(e.target.value as UserRole)}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          </div>
          <button type="submit" disabled={busy || !name.trim()}>
            Create user
          </button>
        </form>
        <p className="hint">Names are unique, whatever their case. The user’s page then makes their first key.</p>
        <ErrorMessage error={createError} prefix="No user was made." />
      </section>
    </>
  );
}
