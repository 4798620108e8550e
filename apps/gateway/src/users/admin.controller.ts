import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { AdminAudit } from '../auth/admin-audit';
import { AdminGuard } from '../auth/admin.guard';
import { userIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type CreateKeyBody,
  type CreateUserBody,
  type DeleteUserBody,
  type UpdateUserBody,
  createKeyBodySchema,
  createUserBodySchema,
  deleteUserBodySchema,
  auditQuerySchema,
  updateUserBodySchema,
} from '@weft/contracts';
import { keyIdPipe } from './key-id';
import { UsersService } from './users.service';

const userIdPipe = new ZodValidationPipe(userIdSchema);
const auditQuery = new ZodValidationPipe(auditQuerySchema);

/** What admins did, and who (an admin user's id, or `bootstrap`): users created, disabled, deleted, roles, keys, limits, the bootstrap token. */
@Controller('v1/admin/audit')
@UseGuards(AdminGuard)
export class AdminAuditController {
  constructor(private readonly audit: AdminAudit) {}

  @Get()
  async latest(@Query(auditQuery) query: { limit: number }) {
    return { entries: await this.audit.latest(query.limit) };
  }
}

@Controller('v1/admin/users')
@UseGuards(AdminGuard)
export class AdminController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(201)
  createUser(@CurrentAdmin() actor: AdminActor, @Body(new ZodValidationPipe(createUserBodySchema)) body: CreateUserBody) {
    return this.users.create(actor, body);
  }

  @Get()
  async list() {
    return { users: await this.users.list() };
  }

  @Get(':id')
  get(@Param('id', userIdPipe) userId: string) {
    return this.users.get(userId);
  }

  @Patch(':id')
  update(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body(new ZodValidationPipe(updateUserBodySchema)) body: UpdateUserBody) {
    return this.users.update(actor, userId, body);
  }

  @Delete(':id')
  delete(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body(new ZodValidationPipe(deleteUserBodySchema)) body: DeleteUserBody) {
    return this.users.delete(actor, userId, body.confirm);
  }

  @Post(':id/keys')
  @HttpCode(201)
  createKey(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Body(new ZodValidationPipe(createKeyBodySchema)) body: CreateKeyBody) {
    return this.users.createKey(actor, userId, body);
  }

  @Delete(':id/keys/:keyId')
  @HttpCode(204)
  async revokeKey(@CurrentAdmin() actor: AdminActor, @Param('id', userIdPipe) userId: string, @Param('keyId', keyIdPipe) keyId: string): Promise<void> {
    await this.users.revokeKey(actor, userId, keyId);
  }
}
