import { type FormEvent, useState } from 'react';
import { ApiError } from '../api/api-error';
import { ApiClient } from '../api/client';
import type { Me } from '../api/schemas';
import { ErrorMessage } from './ErrorMessage';

/** Asks for an API key and checks it with `GET /v1/me` before keeping it. */
export function LoginScreen({ notice, onSignedIn }: { notice?: string; onSignedIn: (key: string, me: Me) => void }) {
  const [key, setKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError(new Error('Paste your API key first.'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onSignedIn(trimmed, await new ApiClient(trimmed).me());
    } catch (err) {
      setBusy(false);
      const refused = err instanceof ApiError && (err.status === 401 || err.status === 403);
      setError(refused ? new Error(`The gateway refused this key: ${err.message}`) : err);
    }
  };

  return (
    <main className="centered login">
      <h1>Weft</h1>
      <p>Sign in with the API key your admin gave you (it starts with <code>weft_</code>).</p>
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form onSubmit={(event) => void submit(event)} className="stack">
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          name="api-key"
          type="password"
          autoComplete="current-password"
          spellCheck={false}
          value={key}
          onChange={(event) => setKey(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'login-error' : undefined}
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <div id="login-error">
          <ErrorMessage error={error} />
        </div>
      </form>
      <p className="hint">The key is kept in this browser only (localStorage) until you sign out.</p>
    </main>
  );
}
