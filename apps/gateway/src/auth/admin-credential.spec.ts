import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { type AdminCandidate, adminKeyRefusal, checkBootstrapToken, retiredTokenError } from './admin-credential';
import { hashApiKey } from './key-hash';

const ENV_TOKEN = 'env-admin-token-0123456789';
const ROTATED = 'weft_bootstrap_rotated';

describe('the bootstrap token', () => {
  it('is WEFT_ADMIN_TOKEN until it is rotated or turned off', () => {
    expect(checkBootstrapToken(ENV_TOKEN, { mode: 'env' }, ENV_TOKEN)).toBe('valid');
    expect(checkBootstrapToken('something-else', { mode: 'env' }, ENV_TOKEN)).toBe('no');
  });

  it('after a rotation is the new token alone, and names WEFT_ADMIN_TOKEN as retired', () => {
    const state = { mode: 'rotated', hash: hashApiKey(ROTATED), changedAt: '2026-11-03T10:00:00.000Z' } as const;
    expect(checkBootstrapToken(ROTATED, state, ENV_TOKEN)).toBe('valid');
    expect(checkBootstrapToken(ENV_TOKEN, state, ENV_TOKEN)).toBe('retired');
    expect(checkBootstrapToken(hashApiKey(ROTATED), state, ENV_TOKEN)).toBe('no');
    expect(retiredTokenError(state).message).toBe(
      "WEFT_ADMIN_TOKEN was replaced by a rotated bootstrap token on 2026-11-03T10:00:00.000Z: use the rotated token or an admin user's API key",
    );
  });

  it('once turned off accepts nothing', () => {
    const state = { mode: 'off', changedAt: '2026-11-03T10:00:00.000Z' } as const;
    expect(checkBootstrapToken(ENV_TOKEN, state, ENV_TOKEN)).toBe('retired');
    expect(checkBootstrapToken(ROTATED, state, ENV_TOKEN)).toBe('no');
    expect(retiredTokenError(state)).toMatchObject({ code: ErrorCode.Unauthorized, message: "The bootstrap admin token was turned off on 2026-11-03T10:00:00.000Z: use an admin user's API key" });
  });
});

describe("an admin user's key", () => {
  const admin: AdminCandidate = { prefix: 'weft_abcdefg', expiresAt: '', userName: 'ada', role: 'admin', disabled: false };

  it('may call admin routes while the user is an enabled admin and the key has not expired', () => {
    expect(adminKeyRefusal(admin)).toBeUndefined();
    expect(adminKeyRefusal({ ...admin, expiresAt: '2099-01-01T00:00:00.000Z' })).toBeUndefined();
  });

  it("refuses a member's key with 403 AUTH.ADMIN_REQUIRED", () => {
    expect(adminKeyRefusal({ ...admin, role: 'member' })).toMatchObject({ code: ErrorCode.AdminRequired, message: expect.stringContaining('User ada is a member, not an admin') });
  });

  it('refuses a disabled admin, and an expired key first of all', () => {
    expect(adminKeyRefusal({ ...admin, disabled: true })).toMatchObject({ code: ErrorCode.Forbidden });
    const now = Date.parse('2026-11-03T10:00:00.000Z');
    expect(adminKeyRefusal({ ...admin, role: 'member', disabled: true, expiresAt: '2026-11-03T10:00:00.000Z' }, now)).toMatchObject({ code: ErrorCode.Unauthorized, message: expect.stringContaining('expired at') });
  });
});
