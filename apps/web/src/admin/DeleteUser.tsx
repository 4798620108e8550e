import { type FormEvent, useState } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { adminHref, navigate } from '../route';
import { focusOnMount } from '../account/focus';
import type { AdminUser } from '../account/types';

/** Deleting removes everything the user owns, so their name is typed again first. */
export function DeleteUser({ account, user }: { account: AccountApi; user: AdminUser }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const { busy, error, run } = useAction(async () => {
    await account.deleteUser(user.id, typed);
    navigate(adminHref('users'));
  });

  const remove = (event: FormEvent) => {
    event.preventDefault();
    void run();
  };

  return (
    <section className="card danger-zone" aria-labelledby="delete-user-heading">
      <h2 id="delete-user-heading">Delete {user.name}</h2>
      <p className="hint">Removes their sessions, workspaces, notes, rules, keys and limits. Their usage figures stay in the team’s accounts.</p>
      {open ? (
        <form className="key-form" onSubmit={remove}>
          <div className="field">
            <label htmlFor="delete-confirm">Type “{user.name}” to confirm</label>
            <input id="delete-confirm" autoComplete="off" spellCheck={false} value={typed} ref={focusOnMount} onChange={(e) => setTyped(e.target.value)} />
          </div>
          <button type="submit" className="danger" disabled={busy || typed !== user.name}>
            Delete user
          </button>
          <button type="button" className="secondary" onClick={() => {
              setOpen(false);
              setTyped('');
            }}>
            Cancel
          </button>
        </form>
      ) : (
        <button type="button" className="danger" onClick={() => setOpen(true)}>
          Delete user…
        </button>
      )}
      <ErrorMessage error={error} prefix="Not deleted." />
    </section>
  );
}
