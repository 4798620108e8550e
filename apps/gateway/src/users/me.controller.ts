import { Body, Controller, Param } from '@nestjs/common';
import { type CreateKeyBody, apiRoutes } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { keyIdPipe } from './key-id';
import { UsersService } from './users.service';

/** The caller: who they are, and their own keys. */
@Controller()
export class MeController {
  constructor(private readonly users: UsersService) {}

  @Route(apiRoutes.me)
  me(@CurrentPrincipal() principal: Principal) {
    return this.users.me(principal.userId);
  }

  @Route(apiRoutes.myKeys)
  async keys(@CurrentPrincipal() principal: Principal) {
    return { keys: await this.users.ownKeys(principal) };
  }

  @Route(apiRoutes.createMyKey)
  createKey(@CurrentPrincipal() principal: Principal, @Body() body: CreateKeyBody) {
    return this.users.createOwnKey(principal, body);
  }

  @Route(apiRoutes.revokeMyKey)
  async revokeKey(@CurrentPrincipal() principal: Principal, @Param('keyId', keyIdPipe) keyId: string): Promise<void> {
    await this.users.revokeOwnKey(principal, keyId);
  }
}
