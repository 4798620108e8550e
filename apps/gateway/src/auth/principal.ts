import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';

/** Who is calling: always taken from the API key, never from the request body. */
export interface Principal {
  userId: string;
  keyId: string;
  /** When the key stops working (ISO time); absent: never. A long stream ends then. */
  keyExpiresAt?: string;
  /** A browser signed in through the identity provider: `keyId` stands for its session, which has no API key record. */
  webSession?: boolean;
}

type WithPrincipal = Request & { principal?: Principal };

export function setPrincipal(req: Request, principal: Principal): void {
  (req as WithPrincipal).principal = principal;
}

export function principalOf(req: Request): Principal {
  const principal = (req as WithPrincipal).principal;
  if (!principal) throw new AppError(ErrorCode.Unauthorized, 'Missing API key');
  return principal;
}

/** `@CurrentPrincipal() principal: Principal` in a controller behind `UserAuthGuard`. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, ctx: ExecutionContext) =>
  principalOf(ctx.switchToHttp().getRequest<Request>()),
);
