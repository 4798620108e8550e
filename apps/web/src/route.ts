import { useEffect, useState } from 'react';

/** Where the page is, kept in the URL's fragment so a reload or a shared link opens the same view. */
export type Route = { view: 'home' } | { view: 'new' } | { view: 'session'; sessionId: string };

export function parseRoute(hash: string): Route {
  const session = /^#\/sessions\/([^/]+)$/.exec(hash);
  if (session?.[1]) return { view: 'session', sessionId: decodeURIComponent(session[1]) };
  if (hash === '#/new') return { view: 'new' };
  return { view: 'home' };
}

export const sessionHref = (sessionId: string) => `#/sessions/${encodeURIComponent(sessionId)}`;

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
