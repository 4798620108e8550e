import { z } from 'zod';
import { ZodValidationPipe } from '../common/zod-validation.pipe';

/** `:keyId` of the key routes (`key_…`). */
export const keyIdPipe = new ZodValidationPipe(z.string().regex(/^key_[a-zA-Z0-9_-]{8,64}$/, 'not a key id'));
