import { z } from 'zod';

/** A comma-separated list (`admins,weft-users`), trimmed; empty by default. */
const list = () =>
  z
    .string()
    .default('')
    .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item !== ''));

/** Unset and empty alike (compose passes `${WEFT_OIDC_ISSUER:-}` as an empty string). */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((value) => (value === '' ? undefined : value), schema.optional());

const quota = z.number().int().min(0).max(1_000_000_000_000);
/** One group's quota class: the fields of an admin's per-user limits (`PUT /v1/admin/users/:id/limits`). */
const quotaClass = z.strictObject({
  weight: z.number().int().min(1).max(100).optional(),
  requestsPerMinute: quota.optional(),
  concurrentTurns: quota.optional(),
  tokensPerDay: quota.optional(),
  sandboxSecondsPerDay: quota.optional(),
});

/** A JSON object of groups in one variable, parsed and checked at boot. */
const groupsJson = <T extends z.ZodType>(entry: T, example: string) =>
  z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return JSON.parse(text === '' ? '{}' : text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be a JSON object: ${example}` });
        return z.NEVER;
      }
    })
    .pipe(z.record(z.string(), entry));

/** Model ids or globs (`qwen*`) a group may, or may not, use. */
const modelRule = z.strictObject({ allow: z.array(z.string().min(1)).optional(), deny: z.array(z.string().min(1)).optional() });

/** Single sign-on through an OpenID Connect provider (docs/sso.md); off while WEFT_OIDC_ISSUER is unset. */
export const oidcEnv = {
  /** The provider's issuer URL; its `/.well-known/openid-configuration` is read on first sign-in. Unset: OIDC sign-in is off. */
  WEFT_OIDC_ISSUER: optional(z.url({ message: 'must be a URL (the provider’s issuer)' })),
  /** The client id registered at the provider (required with WEFT_OIDC_ISSUER). */
  WEFT_OIDC_CLIENT_ID: optional(z.string().min(1)),
  /** The client secret; unset for a public client (PKCE alone). */
  WEFT_OIDC_CLIENT_SECRET: optional(z.string().min(1)),
  /** A file holding WEFT_OIDC_CLIENT_SECRET instead (a Swarm or Kubernetes secret). */
  WEFT_OIDC_CLIENT_SECRET_FILE: optional(z.string().min(1)),
  /** Scopes asked for at sign-in, space-separated; add the one that releases the groups claim where the provider needs it. */
  WEFT_OIDC_SCOPES: z.string().default('openid profile email'),
  /** The redirect URL registered at the provider, `https://<host>/v1/auth/oidc/callback`; unset: taken from the request's host. */
  WEFT_OIDC_REDIRECT_URL: optional(z.url({ message: 'must be a URL (…/v1/auth/oidc/callback)' })),
  /** The ID token claim that lists a user's groups. */
  WEFT_OIDC_GROUPS_CLAIM: z.string().min(1).default('groups'),
  /** Only users in one of these groups may sign in; empty: any group. */
  WEFT_OIDC_ALLOWED_GROUPS: list(),
  /** Only users whose (verified) email is in one of these domains may sign in; empty: any domain. */
  WEFT_OIDC_ALLOWED_EMAIL_DOMAINS: list(),
  /** Members of these groups are Weft admins, everyone else members, set at each sign-in; empty: roles are managed in Weft. */
  WEFT_OIDC_ADMIN_GROUPS: list(),
  /**
   * Quota classes by group, as JSON: `{"interns": {"tokensPerDay": 200000}, "platform": {"weight": 4, "tokensPerDay": 0}}`
   * (fields of the per-user limits; 0: no limit). Set at each sign-in; a user in several groups
   * gets the most generous value of each field; an admin's per-user overrides still win.
   */
  WEFT_OIDC_GROUP_LIMITS: groupsJson(quotaClass, '{"<group>": {"tokensPerDay": 200000, "weight": 2}, …}'),
  /**
   * Model access by group, as JSON: `{"interns": {"allow": ["tiny", "qwen*"]}, "contractors": {"deny": ["big"]}}`.
   * A user may use the models some group of theirs allows (every model when none of their groups
   * has an allow list), except those any group of theirs denies: deny wins. Set at each sign-in.
   */
  WEFT_OIDC_GROUP_MODELS: groupsJson(modelRule, '{"<group>": {"allow": ["tiny"], "deny": ["big*"]}, …}'),
  /** How long a browser sign-in lasts before the user signs in again. */
  WEFT_OIDC_SESSION_HOURS: z.coerce.number().positive().max(24 * 30).default(12),
  /**
   * The longest a browser session goes without a refresh at the provider (sooner when the access
   * token expires sooner): a refused refresh (user disabled, grant revoked) ends the session and its
   * streams, and group changes apply. Needs a refresh token from the provider (often the `offline_access` scope).
   */
  WEFT_OIDC_REFRESH_SECONDS: z.coerce.number().int().positive().default(300),
  /** Allow an `http://` issuer (a local test provider); never in production. */
  WEFT_OIDC_ALLOW_HTTP: z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1' || value === 'yes')
    .default(false),
};
