import { Body, Controller, Param } from '@nestjs/common';
import { type CreateKeyBody, type CreateUserBody, type DeleteUserBody, type UpdateUserBody, apiRoutes } from '@weft/contracts';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { Route } from '../common/api-route.decorator';
import { userIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { keyIdPipe } from './key-id';
import { UsersService } from './users.service';

const userIdPipe = new ZodValidationPipe(userIdSchema);

@Controller()
export class AdminController {
  constructor(private readonly users: UsersService) {}

  @Route(apiRoutes.createUser)
  createUser(@CurrentAdmin() actor: AdminActor, @Body() body: CreateUserBody) {
    return this.users.create(actor, body);
  }

  @Route(apiRoutes.users)
  async list() {
    return { users: await this.users.list() };
  }

  @Route(apiRoutes.user)
  get(@Param('id', userIdPipe) userId: string) {
    return this.users.get(userId);
  }

  @Route(apiRoutes.updateUser)
  update(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body() body: UpdateUserBody) {
    return this.users.update(actor, userId, body);
  }

  @Route(apiRoutes.deleteUser)
  delete(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body() body: DeleteUserBody) {
    return this.users.delete(actor, userId, body.confirm);
  }

  @Route(apiRoutes.createKey)
  createKey(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body() body: CreateKeyBody) {
    return this.users.createKey(actor, userId, body);
  }

  @Route(apiRoutes.revokeKey)
  async revokeKey(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Param('keyId', keyIdPipe) keyId: string): Promise<void> {
    await this.users.revokeKey(actor, userId, keyId);
  }
}
