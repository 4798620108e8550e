import { Controller, Get, UseGuards } from '@nestjs/common';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ModelsService } from './models.service';

@Controller('v1/models')
@UseGuards(UserAuthGuard)
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Get()
  list() {
    return this.models.list();
  }
}
