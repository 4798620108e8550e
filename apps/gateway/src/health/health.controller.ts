import { Controller, Res } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import type { Response } from 'express';
import { Route } from '../common/api-route.decorator';
import { HealthService, type Readiness } from './health.service';

/** Unauthenticated probes for orchestrators. */
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Route(apiRoutes.healthz)
  live() {
    return { status: 'ok' };
  }

  @Route(apiRoutes.readyz)
  async ready(@Res() res: Response) {
    sendReadiness(res, await this.health.readiness());
  }
}

function sendReadiness(res: Response, readiness: Readiness): void {
  if (readiness.ready) {
    res.status(200).json({ status: 'ok', checks: readiness.checks });
    return;
  }
  const down = Object.entries(readiness.checks).flatMap(([name, state]) => (state === 'down' ? [name] : []));
  res.status(503).json({ status: 'unavailable', down, checks: readiness.checks });
}
