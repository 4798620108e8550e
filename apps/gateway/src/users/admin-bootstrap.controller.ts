import { Controller, Delete, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { AdminGuard } from '../auth/admin.guard';
import { BootstrapTokensService } from '../auth/bootstrap-tokens.service';

/** The bootstrap admin token: its state, a rotation (the new token shown once), turning it off. */
@Controller('v1/admin/bootstrap-token')
@UseGuards(AdminGuard)
export class AdminBootstrapController {
  constructor(private readonly tokens: BootstrapTokensService) {}

  @Get()
  view() {
    return this.tokens.view();
  }

  @Post('rotate')
  @HttpCode(201)
  rotate(@CurrentAdmin() actor: AdminActor) {
    return this.tokens.rotate(actor);
  }

  @Delete()
  turnOff(@CurrentAdmin() actor: AdminActor) {
    return this.tokens.turnOff(actor);
  }
}
