import { type ArgumentMetadata, type PipeTransform } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { z } from 'zod';

/** Parses a body, param or query with zod; a failure is a 400 that names the bad field. */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown, metadata: ArgumentMetadata): z.infer<S> {
    const parsed = this.schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const where = metadata.type === 'custom' ? 'header' : metadata.type;
    const root = [where, metadata.data].filter(Boolean).join('.');
    const problems = parsed.error.issues.map((issue) => {
      const field = [root, ...issue.path.map(String)].join('.');
      return { field, message: issue.message };
    });
    const message = `Invalid ${where}: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`;
    throw new AppError(ErrorCode.ValidationFailed, message, { problems });
  }
}
