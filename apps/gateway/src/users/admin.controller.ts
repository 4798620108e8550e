import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { userIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { type CreateUserBody, createUserBodySchema } from './users.schemas';
import { UsersService } from './users.service';

@Controller('v1/admin/users')
@UseGuards(AdminGuard)
export class AdminController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @HttpCode(201)
  createUser(@Body(new ZodValidationPipe(createUserBodySchema)) body: CreateUserBody) {
    return this.users.create(body);
  }

  @Post(':id/keys')
  @HttpCode(201)
  createKey(@Param('id', new ZodValidationPipe(userIdSchema)) userId: string) {
    return this.users.createKey(userId);
  }
}
