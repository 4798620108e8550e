import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const KEY_PREFIX = 'weft_';

/** A new API key: `weft_` and 32 random bytes. Shown once, stored only as its hash. */
export function generateApiKey(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Keys are high-entropy, so a plain sha256 is enough (no salt or slow hash needed). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Compares without leaking the position of the first difference or the secret's length. */
export function constantTimeEquals(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, if well formed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** A new bootstrap admin token, returned once by a rotation and stored only as its hash. */
export function generateBootstrapToken(): string {
  return `weft_bootstrap_${randomBytes(32).toString('base64url')}`;
}
