import { ArgumentsHost, Catch, type PipeTransform, type RpcExceptionFilter } from '@nestjs/common';
import { AppError, ErrorCode, type WireError } from '@weft/contracts';
import { Observable, throwError } from 'rxjs';
import type { z } from 'zod';

/** Validates a message payload against its contract schema; a bad payload is a typed error. */
export class ZodPayloadPipe<S extends z.ZodType> implements PipeTransform<unknown, z.infer<S>> {
  constructor(private readonly schema: S) {}

  transform(value: unknown): z.infer<S> {
    const parsed = this.schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
    throw new AppError(ErrorCode.ValidationFailed, `Invalid payload: ${problems.join('; ')}`, { problems });
  }
}

/**
 * Every error leaving a worker becomes `{ code, message, details }`; unexpected ones are logged
 * here, once, and sent as COMMON.INTERNAL without internals.
 */
@Catch()
export class WireErrorFilter implements RpcExceptionFilter<unknown> {
  constructor(private readonly log: (error: unknown) => void = (e) => console.error(e)) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    return throwError(() => toWire(exception, this.log));
  }
}

function toWire(exception: unknown, log: (error: unknown) => void): WireError {
  if (exception instanceof AppError) return exception.toWire();
  log(exception);
  return { code: ErrorCode.Internal, message: 'Internal error in worker' };
}
