import { useCallback, useEffect, useMemo, useState } from 'react';
import { AccountApi } from './api/account-client';
import { ApiError } from './api/api-error';
import { ApiClient } from './api/client';
import { forgetKey, loadKey, saveKey } from './api/key-store';
import type { Me } from './api/schemas';
import { ErrorMessage } from './components/ErrorMessage';
import { LoginScreen } from './components/LoginScreen';
import { Shell } from './Shell';
import { SsoSignIn } from './signin/SsoSignIn';
import { SESSION_CREDENTIAL, loadWebSession, signOutWebSession } from './signin/web-session';

type Auth =
  | { state: 'signed-out'; notice?: string; sso?: boolean }
  | { state: 'checking'; key: string }
  | { state: 'unreachable'; key: string; error: unknown }
  | { state: 'signed-in'; key: string; me: Me };

/**
 * Signs in with a key kept in localStorage (a saved key is checked with `GET /v1/me` first), or
 * through the identity provider: then the browser's session cookie is the credential and no key is kept.
 */
export function App() {
  const [auth, setAuth] = useState<Auth>(() => {
    return { state: 'checking', key: loadKey() ?? SESSION_CREDENTIAL };
  });

  const check = useCallback((key: string) => {
    setAuth({ state: 'checking', key });
    new ApiClient(key).me().then(
      (me) => setAuth({ state: 'signed-in', key, me }),
      (error: unknown) => {
        if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
          forgetKey();
          setAuth({ state: 'signed-out', notice: `Your saved key no longer works: ${error.message}` });
        } else setAuth({ state: 'unreachable', key, error });
      },
    );
  }, []);

  // Once, for the key saved by an earlier visit; else for a sign-in through the identity provider.
  useEffect(() => {
    const saved = loadKey();
    if (saved) check(saved);
    else {
      loadWebSession().then(
        (session) => (session.user ? check(SESSION_CREDENTIAL) : setAuth({ state: 'signed-out', sso: session.oidc })),
        () => setAuth({ state: 'signed-out' }),
      );
    }
  }, [check]);

  const signOut = useCallback(() => {
    forgetKey();
    const sso = auth.state === 'signed-in' && auth.key === SESSION_CREDENTIAL;
    if (!sso) return setAuth({ state: 'signed-out' });
    signOutWebSession().then(
      () => setAuth({ state: 'signed-out', sso: true }),
      (error: unknown) => setAuth({ state: 'signed-out', sso: true, notice: `Signing out at the gateway failed: ${String(error)}` }),
    );
  }, [auth]);

  const api = useMemo(() => (auth.state === 'signed-in' ? new ApiClient(auth.key) : null), [auth]);
  const account = useMemo(() => (auth.state === 'signed-in' ? new AccountApi(auth.key) : null), [auth]);

  switch (auth.state) {
    case 'signed-out':
      return (
        <>
          {auth.sso ? <SsoSignIn /> : null}
          <LoginScreen
            notice={auth.notice}
            onSignedIn={(key, me) => {
              saveKey(key);
              setAuth({ state: 'signed-in', key, me });
            }}
          />
        </>
      );
    case 'checking':
      return (
        <main className="centered">
          <p role="status">Connecting to the gateway…</p>
        </main>
      );
    case 'unreachable':
      return (
        <main className="centered">
          <h1>Weft</h1>
          <ErrorMessage error={auth.error} prefix="Could not check your key." />
          <div className="row">
            <button type="button" onClick={() => check(auth.key)}>
              Try again
            </button>
            <button type="button" className="secondary" onClick={signOut}>
              Sign out
            </button>
          </div>
        </main>
      );
    case 'signed-in':
      return api && account ? <Shell api={api} account={account} me={auth.me} onSignOut={signOut} /> : null;
  }
}
