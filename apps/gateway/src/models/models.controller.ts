import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { ModelsService } from './models.service';

@Controller()
export class ModelsController {
  constructor(private readonly models: ModelsService) {}

  @Route(apiRoutes.models)
  list(@CurrentPrincipal() principal: Principal) {
    return this.models.listFor(principal.userId);
  }
}
