import { loadConfig } from '@weft/config';
import { describe, expect, it } from 'vitest';
import { gatewaySettingsSchema } from '../../config';
import { admit } from './oidc-admission';
import type { IdTokenClaims } from './oidc-provider-client';
import { oidcSettingsOf } from './oidc-settings';

const base = { WEFT_ADMIN_TOKEN: 'admin-token-0123456789' };
const settingsWith = (env: Record<string, string>) => oidcSettingsOf(loadConfig(gatewaySettingsSchema, { ...base, ...env }));
const https = { WEFT_OIDC_ISSUER: 'https://idp.example.com/realms/dev', WEFT_OIDC_CLIENT_ID: 'weft' };

describe('OIDC settings', () => {
  it('are off while the issuer is unset or empty (as compose passes it)', () => {
    expect(settingsWith({})).toBeUndefined();
    expect(settingsWith({ WEFT_OIDC_ISSUER: '', WEFT_OIDC_CLIENT_ID: '' })).toBeUndefined();
  });

  it('need a client id with an issuer, and https unless WEFT_OIDC_ALLOW_HTTP', () => {
    expect(() => settingsWith({ WEFT_OIDC_ISSUER: 'https://idp.example.com' })).toThrow(/WEFT_OIDC_CLIENT_ID/);
    expect(() => settingsWith({ ...https, WEFT_OIDC_ISSUER: 'http://idp.local' })).toThrow(/WEFT_OIDC_ISSUER: http:\/\/idp.local\/ is not https/);
    expect(settingsWith({ ...https, WEFT_OIDC_ISSUER: 'http://idp.local', WEFT_OIDC_ALLOW_HTTP: 'true' })?.allowHttp).toBe(true);
  });

  it('reads quota classes by group, and names a malformed or unknown one', () => {
    expect(settingsWith({ ...https, WEFT_OIDC_GROUP_LIMITS: '{"interns": {"tokensPerDay": 1000}}' })?.groupLimits).toEqual({ interns: { tokensPerDay: 1000 } });
    expect(() => settingsWith({ ...https, WEFT_OIDC_GROUP_LIMITS: '{interns' })).toThrow(/WEFT_OIDC_GROUP_LIMITS: must be a JSON object/);
    expect(() => settingsWith({ ...https, WEFT_OIDC_GROUP_LIMITS: '{"interns": {"tokens": 1}}' })).toThrow(/WEFT_OIDC_GROUP_LIMITS/);
  });

  it('names a malformed issuer', () => {
    expect(() => settingsWith({ ...https, WEFT_OIDC_ISSUER: 'idp.example.com' })).toThrow(/WEFT_OIDC_ISSUER: must be a URL/);
  });
});

describe('who may sign in', () => {
  const claims = (extra: Record<string, unknown>): IdTokenClaims => ({ iss: 'https://idp.example.com', sub: 's-1', preferred_username: 'ada', ...extra });

  it('lets anyone in without allow-lists, reading groups from the configured claim', () => {
    const settings = settingsWith({ ...https, WEFT_OIDC_GROUPS_CLAIM: 'roles' })!;
    expect(admit(claims({ roles: ['dev'], groups: ['ignored'] }), settings)).toMatchObject({ admitted: true, identity: { displayName: 'ada', groups: ['dev'] } });
  });

  it('refuses a user in none of the allowed groups, naming them', () => {
    const settings = settingsWith({ ...https, WEFT_OIDC_ALLOWED_GROUPS: 'weft-users, weft-admins' })!;
    expect(admit(claims({ groups: ['weft-users'] }), settings).admitted).toBe(true);
    expect(admit(claims({ groups: 'weft-admins' }), settings).admitted).toBe(true);
    expect(admit(claims({ groups: ['contractors'] }), settings)).toEqual({ admitted: false, reason: expect.stringContaining('none of the groups allowed to use this Weft (weft-users, weft-admins)') });
    expect(admit(claims({}), settings).admitted).toBe(false);
  });

  it('refuses an email outside the allowed domains, or one the provider has not verified', () => {
    const settings = settingsWith({ ...https, WEFT_OIDC_ALLOWED_EMAIL_DOMAINS: '@Example.com' })!;
    expect(admit(claims({ email: 'ada@example.com', email_verified: true }), settings).admitted).toBe(true);
    expect(admit(claims({ email: 'ada@evil.com' }), settings)).toMatchObject({ admitted: false, reason: expect.stringContaining('ada@evil.com') });
    expect(admit(claims({ email: 'ada@example.com', email_verified: false }), settings)).toMatchObject({ admitted: false, reason: expect.stringContaining('not verified') });
    expect(admit(claims({}), settings).admitted).toBe(false);
  });
});
