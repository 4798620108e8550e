import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';

/** Who called an admin route: the bootstrap token, or an admin user through one of their keys. */
export type AdminActor = { kind: 'bootstrap' } | { kind: 'user'; userId: string; keyId: string };

/** How the audit log names the bootstrap token as an actor. */
export const BOOTSTRAP_ACTOR = 'bootstrap';

type WithAdminActor = Request & { adminActor?: AdminActor };

export function setAdminActor(req: Request, actor: AdminActor): void {
  (req as WithAdminActor).adminActor = actor;
}

/** `bootstrap`, or the admin user's id. */
export function actorName(actor: AdminActor): string {
  return actor.kind === 'bootstrap' ? BOOTSTRAP_ACTOR : actor.userId;
}

/** `@CurrentAdmin() actor: AdminActor` in a controller behind `AdminGuard`. */
export const CurrentAdmin = createParamDecorator((_data: unknown, ctx: ExecutionContext) => {
  const actor = (ctx.switchToHttp().getRequest<Request>() as WithAdminActor).adminActor;
  if (!actor) throw new AppError(ErrorCode.Unauthorized, 'Missing admin token: send Authorization: Bearer <token>');
  return actor;
});
