import { z } from 'zod';

/** `tool`: an agent's tool call; `admin`: something an admin (or the bootstrap token) did. */
export const AUDIT_KINDS = ['tool', 'admin'] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** Most entries one page of `GET /v1/admin/audit` returns. */
export const MAX_AUDIT_PAGE = 1000;

const streamId = z.string().regex(/^\d{1,15}-\d{1,15}$/, 'must be the `next` of an earlier page');
const instant = z
  .string()
  .max(40)
  .refine((value) => !Number.isNaN(Date.parse(value)), 'must be an ISO date or date-time, e.g. 2026-11-28 or 2026-11-28T09:00:00Z');
const name = z.string().min(1).max(100);

/** Filters of the audit trail; every one optional, all of them together narrow it. */
export const auditQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).default(100),
  /** The `next` of the page before: entries older than that one. */
  before: streamId.optional(),
  /** Who acted (the tool call's session owner, the admin), or the user an admin acted on. */
  user: name.optional(),
  /** Tool calls of this session only. */
  session: name.optional(),
  kind: z.enum(AUDIT_KINDS).optional(),
  /** The admin action (`user.deleted`) or the tool (`run_command`). */
  action: name.optional(),
  /** Time range, inclusive; a date alone is its midnight UTC. */
  from: instant.optional(),
  to: instant.optional(),
});
export type AuditQuery = z.input<typeof auditQuerySchema>;

export const auditEntrySchema = z.object({
  /** Also its place in the trail: the cursor pages go by. */
  id: z.string(),
  at: z.string(),
  kind: z.enum(AUDIT_KINDS),
  /** The user who acted: `bootstrap`, an admin's id, or the owner of the session whose agent called the tool. */
  actor: z.string(),
  actorKeyId: z.string().optional(),
  /** The admin action, or the tool's name. */
  action: z.string(),
  /** The user an admin acted on. */
  userId: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  sessionId: z.string().optional(),
  turnId: z.string().optional(),
  callId: z.string().optional(),
  /** The call's arguments, cut short, with file contents left out and secrets masked. */
  args: z.string().optional(),
  decision: z.enum(['allow', 'deny']).optional(),
  decidedBy: z.enum(['policy', 'user', 'timeout', 'cancel']).optional(),
  /** The user who answered the permission question. */
  decider: z.string().optional(),
  /** The rule that decided, and its scope (`default` when no rule matched). */
  rule: z.string().optional(),
  scope: z.string().optional(),
  outcome: z.enum(['ok', 'error', 'denied']).optional(),
  exitCode: z.number().int().optional(),
  errorCode: z.string().optional(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

/** Newest first; `next` is there when older entries may match: pass it as `before`. */
export const auditPageSchema = z.object({ entries: z.array(auditEntrySchema), next: z.string().optional() });
export type AuditPage = z.infer<typeof auditPageSchema>;
