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
