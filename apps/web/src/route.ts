import { useEffect, useState } from 'react';

/** The parts of the Admin page, each a link of its own. */
export const ADMIN_TABS = ['users', 'usage', 'audit', 'fleet'] as const;
export type AdminTab = (typeof ADMIN_TABS)[number];

/** Where the page is, kept in the URL's fragment so a reload or a shared link opens the same view. */
export type Route =
  | { view: 'home' }
  | { view: 'new' }
  | { view: 'session'; sessionId: string }
  | { view: 'me' }
  | { view: 'admin'; tab: AdminTab; userId?: string };

export function parseRoute(hash: string): Route {
  const session = /^#\/sessions\/([^/]+)$/.exec(hash);
  if (session?.[1]) return { view: 'session', sessionId: decodeURIComponent(session[1]) };
  if (hash === '#/new') return { view: 'new' };
  if (hash === '#/me') return { view: 'me' };
  const user = /^#\/admin\/users\/([^/]+)$/.exec(hash);
  if (user?.[1]) return { view: 'admin', tab: 'users', userId: decodeURIComponent(user[1]) };
  const admin = /^#\/admin(?:\/([a-z]+))?$/.exec(hash);
  if (admin) return { view: 'admin', tab: ADMIN_TABS.find((tab) => tab === admin[1]) ?? 'users' };
  return { view: 'home' };
}

export const sessionHref = (sessionId: string) => `#/sessions/${encodeURIComponent(sessionId)}`;
export const adminHref = (tab: AdminTab) => `#/admin/${tab}`;
export const adminUserHref = (userId: string) => `#/admin/users/${encodeURIComponent(userId)}`;

export function navigate(href: string): void {
  window.location.hash = href.replace(/^#/, '');
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
