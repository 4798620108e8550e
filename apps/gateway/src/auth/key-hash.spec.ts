import { describe, expect, it } from 'vitest';
import { bearerToken, constantTimeEquals, generateApiKey, hashApiKey } from './key-hash';

describe('API keys', () => {
  it('generates distinct weft_ keys', () => {
    const a = generateApiKey();
    expect(a).toMatch(/^weft_[A-Za-z0-9_-]{43}$/);
    expect(generateApiKey()).not.toBe(a);
  });

  it('hashes a key to a stable sha256 hex digest that does not contain the key', () => {
    const key = 'weft_example';
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain('example');
    expect(hashApiKey('weft_other')).not.toBe(hashApiKey(key));
  });

  it('compares secrets of different lengths without throwing', () => {
    expect(constantTimeEquals('short', 'a-much-longer-admin-token')).toBe(false);
    expect(constantTimeEquals('a-much-longer-admin-token', 'a-much-longer-admin-token')).toBe(true);
  });

  it('reads only well-formed bearer headers', () => {
    expect(bearerToken('Bearer weft_abc')).toBe('weft_abc');
    expect(bearerToken('bearer weft_abc')).toBe('weft_abc');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
