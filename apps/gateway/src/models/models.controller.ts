import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { ModelsService } from './models.service';

@Controller()
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Route(apiRoutes.models)
  list() {
    return this.models.list();
  }
}
