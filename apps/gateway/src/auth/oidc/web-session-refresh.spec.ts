import { describe, expect, it } from 'vitest';
import { grantOf } from './web-session-refresh';

describe('when a browser session is refreshed next', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');

  it('refreshes when the access token expires, if that is before the longest interval', () => {
    expect(grantOf('rt', 60, 300, now)).toEqual({ refreshToken: 'rt', refreshAt: '2026-11-26T12:01:00.000Z' });
  });

  it('refreshes after the longest interval when the access token lives longer or the provider named no expiry', () => {
    expect(grantOf('rt', 3600, 300, now).refreshAt).toBe('2026-11-26T12:05:00.000Z');
    expect(grantOf('rt', undefined, 300, now).refreshAt).toBe('2026-11-26T12:05:00.000Z');
  });

  it('waits at least a second, whatever the provider says', () => {
    expect(grantOf('rt', 0, 300, now).refreshAt).toBe('2026-11-26T12:00:01.000Z');
  });
});
