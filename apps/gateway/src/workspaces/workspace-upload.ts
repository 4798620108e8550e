import { AppError, ErrorCode } from '@weft/contracts';
import { z } from 'zod';

export const GZIP_TYPES = ['application/gzip', 'application/x-gzip'];

/** What `POST /v1/workspaces` was given: nothing (an empty workspace) or a tar.gz. */
export type WorkspaceUpload = { kind: 'empty' } | { kind: 'archive'; archive: Buffer };

const emptyBodySchema = z.strictObject({});

/** Reads the upload from the already-parsed body (express.json or express.raw). */
export function parseWorkspaceUpload(contentType: string | undefined, body: unknown): WorkspaceUpload {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  if (type && GZIP_TYPES.includes(type)) {
    if (!Buffer.isBuffer(body) || body.length === 0) {
      throw new AppError(ErrorCode.ValidationFailed, 'The tar.gz body is empty');
    }
    return { kind: 'archive', archive: body };
  }
  if (type && type !== 'application/json') {
    throw new AppError(
      ErrorCode.ValidationFailed,
      `Unsupported Content-Type ${type}: send application/json {} or application/gzip (a tar.gz)`,
    );
  }
  const parsed = emptyBodySchema.safeParse(body ?? {});
  if (!parsed.success) {
    const fields = parsed.error.issues.map((i) => [...i.path, ...('keys' in i ? i.keys : [])].join('.') || 'body');
    throw new AppError(ErrorCode.ValidationFailed, `Invalid body: expected {} (unexpected: ${fields.join(', ')})`);
  }
  return { kind: 'empty' };
}
