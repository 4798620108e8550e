import { useCallback } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { KeyCreateForm } from './KeyCreateForm';
import { KeyTable } from './KeyTable';
import { useLoad } from './use-load';

/** The user's own keys: another for a second machine, a rotation, a revocation, without the admin. */
export function MyKeysSection({ account }: { account: AccountApi }) {
  const load = useCallback(() => account.myKeys(), [account]);
  const { data: keys, error, reload } = useLoad(load);

  return (
    <section className="card" aria-labelledby="my-keys-heading">
      <h2 id="my-keys-heading">My keys</h2>
      <p className="hint">Each client you use (this browser, the CLI on each machine, an editor) can have its own key, so one can be revoked alone. The key this browser signed in with cannot be revoked from here.</p>
      <ErrorMessage error={error} />
      {keys === null && !error ? <p role="status">Loading…</p> : null}
      {keys ? <KeyTable keys={keys} caption="My keys" revoke={(keyId) => account.revokeMyKey(keyId)} onRevoked={reload} /> : null}
      <h3>New key</h3>
      <KeyCreateForm whose="me" create={(body) => account.createMyKey(body)} onCreated={reload} />
    </section>
  );
}
