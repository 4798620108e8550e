import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { streamIdSchema } from '../common/ids';

/** The `Last-Event-ID` header a reconnecting EventSource sends, validated. */
export const LastEventId = createParamDecorator((_data: unknown, ctx: ExecutionContext): string | undefined => {
  const value = ctx.switchToHttp().getRequest<Request>().headers['last-event-id'];
  if (value === undefined || value === '') return undefined;
  const parsed = streamIdSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new AppError(ErrorCode.ValidationFailed, `Invalid header: Last-Event-ID: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
});
