import { z } from 'zod';

export const createUserBodySchema = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
});
export type CreateUserBody = z.infer<typeof createUserBodySchema>;
