import { describe, expect, it } from 'vitest';
import { adminUserHref, parseRoute, sessionHref } from './route';

describe('routes', () => {
  it('reads the sessions views as before', () => {
    expect(parseRoute('')).toEqual({ view: 'home' });
    expect(parseRoute('#/new')).toEqual({ view: 'new' });
    expect(parseRoute(sessionHref('ses_a/b'))).toEqual({ view: 'session', sessionId: 'ses_a/b' });
  });

  it('reads the Me page and each part of the Admin page, users by default', () => {
    expect(parseRoute('#/me')).toEqual({ view: 'me' });
    expect(parseRoute('#/admin')).toEqual({ view: 'admin', tab: 'users' });
    expect(parseRoute('#/admin/usage')).toEqual({ view: 'admin', tab: 'usage' });
    expect(parseRoute('#/admin/fleet')).toEqual({ view: 'admin', tab: 'fleet' });
    expect(parseRoute('#/admin/nothing')).toEqual({ view: 'admin', tab: 'users' });
    expect(parseRoute(adminUserHref('usr_AbC-1'))).toEqual({ view: 'admin', tab: 'users', userId: 'usr_AbC-1' });
  });

  it('sends anything else home', () => {
    expect(parseRoute('#/me/else')).toEqual({ view: 'home' });
    expect(parseRoute('#/administer')).toEqual({ view: 'home' });
  });
});
