import { Controller, Header } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { UsageMetrics } from './usage-metrics';

/**
 * `GET /metrics` for Prometheus, behind an admin credential: the bootstrap token or an admin user's
 * key (scrape with `authorization: { credentials: … }`; a key of its own survives token rotation).
 */
@Controller()
export class MetricsController {
  constructor(private readonly metrics: UsageMetrics) {}

  @Route(apiRoutes.metrics)
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  text(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
