import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { BootstrapTokensService } from '../auth/bootstrap-tokens.service';
import { Route } from '../common/api-route.decorator';

/** The bootstrap admin token: its state, a rotation (the new token shown once), turning it off. */
@Controller()
export class AdminBootstrapController {
  constructor(private readonly tokens: BootstrapTokensService) {}

  @Route(apiRoutes.bootstrapToken)
  view() {
    return this.tokens.view();
  }

  @Route(apiRoutes.rotateBootstrapToken)
  rotate(@CurrentAdmin() actor: AdminActor) {
    return this.tokens.rotate(actor);
  }

  @Route(apiRoutes.disableBootstrapToken)
  turnOff(@CurrentAdmin() actor: AdminActor) {
    return this.tokens.turnOff(actor);
  }
}
