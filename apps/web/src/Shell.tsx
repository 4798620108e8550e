import { useCallback, useState } from 'react';
import { MePage } from './account/MePage';
import { AdminPage } from './admin/AdminPage';
import type { AccountApi } from './api/account-client';
import type { ApiClient } from './api/client';
import type { Me } from './api/schemas';
import { ChatView } from './chat/ChatView';
import { type Route, navigate, sessionHref, useRoute } from './route';
import { NewSession } from './sessions/NewSession';
import { SessionList } from './sessions/SessionList';

/** Which top-bar link the view belongs to. */
function pageOf(route: Route): 'sessions' | 'me' | 'admin' {
  return route.view === 'me' || route.view === 'admin' ? route.view : 'sessions';
}

/** The signed-in page: sessions on the left, the chosen view in the middle; the Me and Admin pages take the whole width. */
export function Shell({ api, account, me, onSignOut }: { api: ApiClient; account: AccountApi; me: Me; onSignOut: () => void }) {
  const route = useRoute();
  const [listVersion, setListVersion] = useState(0);
  const refreshList = useCallback(() => setListVersion((v) => v + 1), []);
  const currentId = route.view === 'session' ? route.sessionId : null;

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Weft</span>
        <nav className="topnav" aria-label="Pages">
          <a href="#/" aria-current={pageOf(route) === 'sessions' ? 'page' : undefined}>
            Sessions
          </a>
          <a href="#/me" aria-current={pageOf(route) === 'me' ? 'page' : undefined}>
            Me
          </a>
          {me.role === 'admin' ? (
            <a href="#/admin" aria-current={pageOf(route) === 'admin' ? 'page' : undefined}>
              Admin
            </a>
          ) : null}
        </nav>
        <span className="who">
          Signed in as <strong>{me.name}</strong>
        </span>
        <button type="button" className="secondary small" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {route.view === 'me' || route.view === 'admin' ? (
        <main id="main" className="content full" tabIndex={-1}>
          {route.view === 'me' ? <MePage account={account} me={me} /> : <AdminPage account={account} me={me} tab={route.tab} userId={route.userId} />}
        </main>
      ) : (
        <div className="shell">
          <nav className="sidebar" aria-label="Sessions">
            <a className="button new-session" href="#/new" aria-current={route.view === 'new' ? 'page' : undefined}>
              New session
            </a>
            <SessionList
              api={api}
              version={listVersion}
              currentId={currentId}
              onDeleted={(id) => {
                if (id === currentId) navigate('#/');
                refreshList();
              }}
            />
          </nav>
          <main id="main" className="content" tabIndex={-1}>
            {route.view === 'new' ? (
              <NewSession
                api={api}
                onCreated={(id) => {
                  refreshList();
                  navigate(sessionHref(id));
                }}
              />
            ) : route.view === 'session' ? (
              <ChatView key={route.sessionId} api={api} sessionId={route.sessionId} onActivity={refreshList} />
            ) : (
              <section className="welcome">
                <h1>Welcome, {me.name}</h1>
                <p>
                  Pick a session on the left, or <a href="#/new">start a new one</a> on a folder of yours.
                </p>
              </section>
            )}
          </main>
        </div>
      )}
    </div>
  );
}
