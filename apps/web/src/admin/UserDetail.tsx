import { useCallback, useState } from 'react';
import type { UserRole } from '@weft/contracts';
import type { AccountApi } from '../api/account-client';
import type { Me } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { adminHref } from '../route';
import { formatInstant } from '../account/format';
import { KeyCreateForm } from '../account/KeyCreateForm';
import { KeyTable } from '../account/KeyTable';
import { useLoad } from '../account/use-load';
import { DeleteUser } from './DeleteUser';
import { UserLimitsForm } from './UserLimitsForm';
import { UserSso } from './UserSso';

/** One user: role, disabling, keys, quota overrides, deletion. */
export function UserDetail({ account, userId, me }: { account: AccountApi; userId: string; me: Me }) {
  const load = useCallback(() => account.user(userId), [account, userId]);
  const { data: user, error, reload } = useLoad(load);
  const [notice, setNotice] = useState('');
  const {
    busy,
    error: actionError,
    run: change,
  } = useAction(async (body: { role?: UserRole; disabled?: boolean }, done: (cancelledTurns: number) => string) => {
    const updated = await account.updateUser(userId, body);
    setNotice(done(updated.cancelledTurns));
    reload();
  });

  return (
    <>
      <p>
        <a href={adminHref('users')}>← All users</a>
      </p>
      <ErrorMessage error={error} />
      {user === null && !error ? <p role="status">Loading…</p> : null}
      {user ? (
        <>
          <section className="card" aria-labelledby="user-heading">
            <h2 id="user-heading">
              {user.name}
              {user.id === me.id ? <span className="tag">you</span> : null}
              {user.disabled ? <span className="tag danger">disabled</span> : null}
            </h2>
            <p className="hint">
              <code>{user.id}</code> · created {formatInstant(user.createdAt)}
            </p>
            <div className="row wrap">
              <label htmlFor="user-role">Role</label>
              <select
                id="user-role"
                value={user.role}
                disabled={busy}
                onChange={(e) => {
                  const role = e.target.value as UserRole;
                  void change({ role }, () => `${user.name} is now ${role === 'admin' ? 'an admin' : 'a member'}.`);
                }}
              >
                <option value="member">member</option>
                <option value="admin">admin</option>
              </select>
              {user.disabled ? (
                <button type="button" disabled={busy} onClick={() => void change({ disabled: false }, () => `${user.name} is enabled: their keys work again.`)}>
                  Enable user
                </button>
              ) : (
                <button
                  type="button"
                  className="danger"
                  disabled={busy}
                  onClick={() => void change({ disabled: true }, (n) => `${user.name} is disabled: their keys are refused${n ? ` and ${n} running turn${n === 1 ? ' was' : 's were'} cancelled` : ''}.`)}
                >
                  Disable user
                </button>
              )}
            </div>
            <p className="hint">Disabling refuses the user’s keys at once and cancels their running turns; their sessions and workspaces stay.</p>
            <ErrorMessage error={actionError} />
            <p className="hint" role="status">
              {notice}
            </p>
          </section>
          <UserSso sso={user.sso} />
          <section className="card" aria-labelledby="user-keys-heading">
            <h2 id="user-keys-heading">Keys of {user.name}</h2>
            <KeyTable keys={user.keys} caption={`Keys of ${user.name}`} revoke={(keyId) => account.revokeKey(userId, keyId)} onRevoked={reload} />
            <h3>New key</h3>
            <KeyCreateForm whose={user.name} create={(body) => account.createKey(userId, body)} onCreated={reload} />
          </section>
          <UserLimitsForm account={account} userId={userId} userName={user.name} />
          <DeleteUser account={account} user={user} />
        </>
      ) : null}
    </>
  );
}
