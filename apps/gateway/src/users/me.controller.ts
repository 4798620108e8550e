import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { type CreateKeyBody, createKeyBodySchema } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { keyIdPipe } from './key-id';
import { UsersService } from './users.service';

/** The caller: who they are, and their own keys. */
@Controller('v1/me')
@UseGuards(UserAuthGuard)
export class MeController {
  constructor(private readonly users: UsersService) {}

  @Get()
  me(@CurrentPrincipal() principal: Principal) {
    return this.users.me(principal.userId);
  }

  @Get('keys')
  async keys(@CurrentPrincipal() principal: Principal) {
    return { keys: await this.users.ownKeys(principal) };
  }

  @Post('keys')
  @HttpCode(201)
  createKey(@CurrentPrincipal() principal: Principal, @Body(new ZodValidationPipe(createKeyBodySchema)) body: CreateKeyBody) {
    return this.users.createOwnKey(principal, body);
  }

  @Delete('keys/:keyId')
  @HttpCode(204)
  async revokeKey(@CurrentPrincipal() principal: Principal, @Param('keyId', keyIdPipe) keyId: string): Promise<void> {
    await this.users.revokeOwnKey(principal, keyId);
  }
}
