import { z } from 'zod';

/**
 * `GET /v1/auth/session`: whether sign-in through an identity provider is on, and the browser's
 * signed-in user with the CSRF token its page sends (`x-weft-csrf`) on every change; nulls when not signed in.
 */
export const webSessionSchema = z.object({
  oidc: z.boolean(),
  user: z.object({ id: z.string(), name: z.string(), role: z.enum(['admin', 'member']) }).nullable(),
  csrfToken: z.string().nullable(),
  expiresAt: z.string().nullable(),
});
export type WebSessionAnswer = z.infer<typeof webSessionSchema>;

/** The header a cookie-authenticated request that changes something must carry. */
export const CSRF_HEADER_NAME = 'x-weft-csrf';

/** `POST /v1/auth/device`: a device sign-in (`weft login`) begun; the user confirms `userCode` at `verificationUri`. */
export const deviceSignInStartSchema = z.object({
  handle: z.string(),
  userCode: z.string(),
  verificationUri: z.string(),
  verificationUriComplete: z.string().nullable(),
  expiresIn: z.number(),
  interval: z.number(),
});
export type DeviceSignInStart = z.infer<typeof deviceSignInStartSchema>;

/** `POST /v1/auth/device/poll`: the handle, and a name for the key it mints. */
export const deviceSignInPollBodySchema = z.strictObject({
  handle: z.string().min(1).max(200),
  keyName: z.string().trim().min(1).max(100).default('weft login'),
});
export type DeviceSignInPollBody = z.infer<typeof deviceSignInPollBodySchema>;

/** Still waiting for the user (poll again after the interval, longer on `slowDown`), or the user's new key, shown once. */
export const deviceSignInPollSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('pending'), slowDown: z.boolean() }),
  z.object({
    status: z.literal('done'),
    key: z.string(),
    keyId: z.string(),
    user: z.object({ id: z.string(), name: z.string(), role: z.enum(['admin', 'member']) }),
  }),
]);
export type DeviceSignInPoll = z.infer<typeof deviceSignInPollSchema>;

/**
 * `GET /v1/auth/oidc/cli-login`: `weft login`'s browser sign-in for a provider without the device
 * grant. The browser signs in at the provider through the gateway, which then redirects it to
 * the CLI's loopback `redirect` with a one-time code and `state`; the code is worth a key only
 * with the verifier of `challenge` (PKCE S256), which never left the CLI.
 */
export const cliSignInQuerySchema = z.object({
  redirect: z
    .url()
    .refine((value) => /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d+\//.test(value), 'must be a loopback URL, http://127.0.0.1:<port>/…'),
  challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be a PKCE S256 code challenge (43 base64url characters)'),
  state: z.string().min(16).max(200),
});
export type CliSignInQuery = z.infer<typeof cliSignInQuerySchema>;

/** `POST /v1/auth/oidc/cli-token`: the one-time code from the loopback redirect and the PKCE verifier. */
export const cliSignInTokenBodySchema = z.strictObject({
  code: z.string().min(1).max(200),
  codeVerifier: z.string().min(43).max(128),
  keyName: z.string().trim().min(1).max(100).default('weft login'),
});
export type CliSignInTokenBody = z.infer<typeof cliSignInTokenBodySchema>;

/** The user's new key, shown once. */
export const cliSignInTokenSchema = z.object({
  key: z.string(),
  keyId: z.string(),
  user: z.object({ id: z.string(), name: z.string(), role: z.enum(['admin', 'member']) }),
});
export type CliSignInToken = z.infer<typeof cliSignInTokenSchema>;
