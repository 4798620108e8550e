import { z } from 'zod';
import { chatMessageSchema, modelInfoSchema } from '../inference';
import { resolvedSandboxImageSchema } from '../sandbox';
import { USER_ROLES } from './user-bodies';

/**
 * What the gateway's public routes answer (docs/api.md). The CLI and the web client parse every
 * answer with these, and /openapi.json is generated from them.
 */

/** `{ error: { code, message, details } }`: every error of the API. */
export const httpErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional(), errorId: z.string().optional() }),
});

/** `role` decides whether a client offers the admin pages; a gateway from before roles sent none: a member. */
export const meSchema = z.object({ id: z.string(), name: z.string(), role: z.enum(USER_ROLES).default('member') });
/** `maxOutputTokens`: the longest reply the model gives (absent from gateways before it was listed). */
export const modelsSchema = z.object({ models: z.array(modelInfoSchema.extend({ maxOutputTokens: z.number().int().positive().optional() })) });
export const createdSchema = z.object({ id: z.string() });

export const workspaceSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  files: z.number(),
  bytes: z.number(),
});
export const workspacesSchema = z.object({ workspaces: z.array(workspaceSummarySchema) });

export const fileEntrySchema = z.object({ name: z.string(), type: z.enum(['file', 'directory', 'symlink', 'other']), size: z.number().optional() });
/** A folder of `GET /v1/workspaces/:id/files/…`; a file comes as its bytes. */
export const folderSchema = z.object({ path: z.string(), entries: z.array(fileEntrySchema) });

/** What every view of a session carries. */
const sessionFields = {
  id: z.string(),
  workspaceId: z.string(),
  model: z.string(),
  title: z.string().nullish(),
  createdAt: z.string(),
  activeTurnId: z.string().nullish(),
};
export const sessionSummarySchema = z.object({ ...sessionFields, preview: z.string().nullish(), lastActivityAt: z.string().nullish() });
export const sessionsSchema = z.object({ sessions: z.array(sessionSummarySchema) });
export const sessionSchema = z.object({
  ...sessionFields,
  /** The image the session's commands run in now and what chose it; null when no sandbox worker answered. */
  sandboxImageInUse: resolvedSandboxImageSchema.nullish(),
  lastEventId: z.string().nullish(),
  messages: z.array(chatMessageSchema),
});

export const turnStartedSchema = z.object({ turnId: z.string() });
export const permissionAnsweredSchema = z.object({
  requestId: z.string(),
  decision: z.string(),
  scope: z.string().nullish(),
  storedRules: z.array(z.string()).nullish(),
});
const ruleListsSchema = z.object({ allow: z.array(z.string()), ask: z.array(z.string()), deny: z.array(z.string()) });
export const scopeRulesSchema = z.object({ scope: z.string(), rules: ruleListsSchema });

/**
 * One package manager's install through the sandbox's network, as `weft setup` checks it:
 * `ok`; `untrusted-certificate` (a proxy on the way re-signs HTTPS and the sandbox does not trust
 * its CA); `unreachable` (the registry did not answer through the proxy); `no-network` (the
 * server runs commands without one); `absent` (the image has no such manager).
 */
export const packageInstallCheckSchema = z.object({
  manager: z.enum(['npm', 'pip']),
  status: z.enum(['ok', 'untrusted-certificate', 'unreachable', 'no-network', 'absent']),
  /** The network the run had: the server's default for new sessions. */
  network: z.enum(['none', 'proxy', 'egress']),
  durationMs: z.number(),
  /** The last lines of the manager's output when it failed, where its reason is. */
  output: z.string().optional(),
});
export type PackageInstallCheck = z.infer<typeof packageInstallCheckSchema>;
export const sandboxCheckSchema = z.object({
  ok: z.literal(true),
  durationMs: z.number(),
  /** Absent from gateways older than the package check. */
  packages: z.array(packageInstallCheckSchema).optional(),
});
export const instructionsSchema = z.object({ content: z.string(), updatedAt: z.string().nullable() });
export const noteSchema = z.object({ id: z.string(), text: z.string(), source: z.string(), author: z.string(), createdAt: z.string() });
export const notesSchema = z.object({ notes: z.array(noteSchema) });
export const notesDeletedSchema = z.object({ deleted: z.number() });
export const chainsSchema = z.object({
  chains: z.array(
    z.union([
      z.object({ name: z.string(), error: z.string() }),
      z.object({
        name: z.string(),
        description: z.string().nullable(),
        inputs: z.record(z.string(), z.object({ description: z.string().optional(), default: z.string().optional() })),
        steps: z.number(),
      }),
    ]),
  ),
});

// ---- usage and limits ------------------------------------------------------------------------

/** The counters of a usage row, in the gateway's order. */
export const USAGE_METRICS = ['turns', 'generations', 'promptTokens', 'cachedTokens', 'evaluatedTokens', 'completionTokens', 'toolCalls', 'sandboxRuns', 'sandboxMs'] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];
const metrics = Object.fromEntries(USAGE_METRICS.map((metric) => [metric, z.number()])) as Record<UsageMetric, z.ZodNumber>;
export const usageTotalsSchema = z.object(metrics);
const myUsageRowSchema = z.object({ date: z.string(), model: z.string(), ...metrics });
export const myUsageSchema = z.object({ from: z.string(), to: z.string(), totals: usageTotalsSchema, rows: z.array(myUsageRowSchema) });
export const allUsageSchema = myUsageSchema.extend({ rows: z.array(myUsageRowSchema.extend({ userId: z.string() })) });

/** 0 turns a quota off. */
export const limitsSchema = z.object({
  weight: z.number(),
  requestsPerMinute: z.number(),
  concurrentTurns: z.number(),
  tokensPerDay: z.number(),
  sandboxSecondsPerDay: z.number(),
});
export const myLimitsSchema = z.object({ limits: limitsSchema, tokensUsedToday: z.number() });
export const userLimitsSchema = z.object({
  userId: z.string(),
  defaults: limitsSchema,
  overrides: limitsSchema.partial(),
  effective: limitsSchema,
  tokensUsedToday: z.number(),
});

// ---- admin -----------------------------------------------------------------------------------

export const apiKeySchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
const roleSchema = z.enum(USER_ROLES);
/**
 * What the identity provider said of a user at their last sign-in through it (null for a user who
 * never signed in that way). `roleFrom`: `provider` when WEFT_OIDC_ADMIN_GROUPS set the role they
 * have now, `weft` when it was set in Weft (at creation or by an admin).
 */
export const ssoProfileSchema = z.object({
  email: z.string().nullable(),
  groups: z.array(z.string()),
  signedInAt: z.string(),
  roleFrom: z.enum(['provider', 'weft']),
  /** The limits their groups give (WEFT_OIDC_GROUP_LIMITS); empty when no group has a class. */
  quotaClass: limitsSchema.partial(),
  /** Their groups' model rules (WEFT_OIDC_GROUP_MODELS): `allow` null means every model; null when no group has rules. */
  models: z.object({ allow: z.array(z.string()).nullable(), deny: z.array(z.string()) }).nullable(),
});
export const adminUserSchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.string(),
  role: roleSchema,
  disabled: z.boolean(),
  keys: z.array(apiKeySchema),
  sso: ssoProfileSchema.nullable(),
});
export const adminUsersSchema = z.object({ users: z.array(adminUserSchema) });
/** The new user's first key is created separately (`POST /v1/admin/users/:id/keys`). */
export const createdUserSchema = z.object({ id: z.string(), name: z.string(), role: roleSchema });
export const updatedUserSchema = adminUserSchema.extend({ cancelledTurns: z.number() });
/** `GET /v1/me/keys`: `current` marks the key the request came with, which the caller cannot revoke. */
export const myKeysSchema = z.object({ keys: z.array(apiKeySchema.extend({ current: z.boolean() })) });
/** `key` is shown this once. */
export const createdKeySchema = apiKeySchema.extend({ key: z.string() });
export const deletedUserSchema = z.object({ id: z.string(), name: z.string(), sessions: z.number(), workspaces: z.number(), keys: z.number() });
export const bootstrapTokenSchema = z.object({ state: z.enum(['env', 'rotated', 'off']), changedAt: z.string().nullable(), enabledAdmins: z.number() });
/** `token` is shown this once. */
export const rotatedTokenSchema = bootstrapTokenSchema.extend({ token: z.string() });
const fleetModelSchema = z.object({
  id: z.string(),
  loaded: z.boolean(),
  /** Models on demand: `loading` from its first request until it serves; `unloaded` ones load on request. */
  state: z.enum(['loaded', 'loading', 'unloaded']).optional(),
  /** The memory it takes when loaded (VRAM on a GPU, RAM on a CPU); null until the worker has estimated it. */
  memoryBytes: z.number().nullable().optional(),
  pinned: z.boolean().optional(),
  sequences: z.number().nullable(),
  freeSequences: z.number(),
  queued: z.number(),
  cachedSessions: z.number(),
});
export const fleetWorkerSchema = z.object({
  workerId: z.string(),
  host: z.string().nullable(),
  status: z.string(),
  startedAt: z.string(),
  lastHeartbeatAt: z.string(),
  inFlight: z.number(),
  gpu: z.object({ type: z.string(), vramTotalBytes: z.number(), vramUsedBytes: z.number() }).nullable(),
  /** The loaded models' memory budget (MODELS_MAX_LOADED_BYTES) and what they take of it; null until known. */
  memory: z.object({ budgetBytes: z.number(), usedBytes: z.number() }).nullable().optional(),
  models: z.array(fleetModelSchema),
});
export const fleetSchema = z.object({ workers: z.array(fleetWorkerSchema) });
