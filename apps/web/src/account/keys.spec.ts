import { describe, expect, it } from 'vitest';
import { expiresAtFor, keyExpiry } from './keys';

const now = new Date('2026-11-24T12:00:00Z');

describe('key expiry', () => {
  it('makes no expiry for never, and counts days from now', () => {
    expect(expiresAtFor('never', '', now)).toEqual({});
    expect(expiresAtFor('30', '', now)).toEqual({ expiresAt: '2026-12-24T12:00:00.000Z' });
  });

  it('lets a key work through its chosen last day (UTC), today included', () => {
    expect(expiresAtFor('date', '2026-11-24', now)).toEqual({ expiresAt: '2026-11-25T00:00:00.000Z' });
    expect(expiresAtFor('date', '2026-11-23', now)).toEqual({ error: 'That day is over: pick today or a later one.' });
    expect(expiresAtFor('date', '', now)).toEqual({ error: 'Pick the last day the key works.' });
  });

  it('tells an expired key, one close to expiry, and a far one apart', () => {
    expect(keyExpiry(null, now)).toEqual({ text: 'never expires', state: 'never' });
    expect(keyExpiry('2026-11-20T00:00:00Z', now)).toEqual({ text: 'expired 2026-11-20', state: 'expired' });
    expect(keyExpiry('2026-11-27T00:00:00Z', now)).toEqual({ text: 'expires in 3 days', state: 'soon' });
    expect(keyExpiry('2026-11-24T18:00:00Z', now)).toEqual({ text: 'expires in a day or less', state: 'soon' });
    expect(keyExpiry('2027-11-24T12:00:00Z', now)).toEqual({ text: 'expires 2027-11-24 (365 days)', state: 'ok' });
  });
});
