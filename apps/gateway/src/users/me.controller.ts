import { Controller, Get, UseGuards } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { UsersService } from './users.service';

@Controller('v1/me')
@UseGuards(UserAuthGuard)
export class MeController {
  constructor(private readonly users: UsersService) {}

  @Get()
  me(@CurrentPrincipal() principal: Principal) {
    return this.users.me(principal.userId);
  }
}
