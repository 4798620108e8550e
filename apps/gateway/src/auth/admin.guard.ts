import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Request } from 'express';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { bearerToken, constantTimeEquals } from './key-hash';

/** `/v1/admin/*`: the bearer token must be WEFT_ADMIN_TOKEN. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings) {}

  canActivate(context: ExecutionContext): boolean {
    const token = bearerToken(context.switchToHttp().getRequest<Request>().headers.authorization);
    if (!token) throw new AppError(ErrorCode.Unauthorized, 'Missing admin token: send Authorization: Bearer <token>');
    if (!constantTimeEquals(token, this.config.WEFT_ADMIN_TOKEN)) {
      throw new AppError(ErrorCode.Unauthorized, 'Invalid admin token');
    }
    return true;
  }
}
