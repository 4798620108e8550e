import { z } from 'zod';

/** An admin's keys call the admin routes; a member's get 403. */
export const USER_ROLES = ['admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

const userName = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const role = z.enum(USER_ROLES, { message: 'must be "admin" or "member"' });

/** `role` defaults to `member`. */
export const createUserBodySchema = z.strictObject({ name: userName, role: role.default('member') });
export type CreateUserBody = z.infer<typeof createUserBodySchema>;

export const updateUserBodySchema = z
  .strictObject({
    /** Disabling refuses the user's keys at once and cancels their running turns; nothing is deleted. */
    disabled: z.boolean().optional(),
    /** An admin's keys call the admin routes; a member's get 403. */
    role: role.optional(),
  })
  .refine((body) => body.disabled !== undefined || body.role !== undefined, { message: 'send "disabled", "role" or both' });
export type UpdateUserBody = z.infer<typeof updateUserBodySchema>;

/** Both optional: `POST /v1/admin/users/:id/keys` (or `POST /v1/me/keys`) with no body makes an unnamed key that never expires. */
export const createKeyBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).optional(),
    expiresAt: z.iso.datetime({ offset: true, message: 'must be an ISO date-time, e.g. 2027-01-31T00:00:00Z' }).optional(),
  })
  .refine((body) => !body.expiresAt || Date.parse(body.expiresAt) > Date.now(), { message: 'must be in the future', path: ['expiresAt'] })
  .optional()
  .transform((body) => body ?? {});
export type CreateKeyBody = z.infer<typeof createKeyBodySchema>;

/** The user's name, typed again: deleting a user removes everything they own. */
export const deleteUserBodySchema = z.strictObject({ confirm: z.string() });
export type DeleteUserBody = z.infer<typeof deleteUserBodySchema>;
