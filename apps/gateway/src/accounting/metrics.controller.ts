import { Controller, Get, Header, UseGuards } from '@nestjs/common';
import { AdminGuard } from '../auth/admin.guard';
import { UsageMetrics } from './usage-metrics';

/**
 * `GET /metrics` for Prometheus, behind an admin credential: the bootstrap token or an admin user's
 * key (scrape with `authorization: { credentials: … }`; a key of its own survives token rotation).
 */
@Controller('metrics')
@UseGuards(AdminGuard)
export class MetricsController {
  constructor(private readonly metrics: UsageMetrics) {}

  @Get()
  @Header('content-type', 'text/plain; version=0.0.4; charset=utf-8')
  text(): Promise<string> {
    return this.metrics.registry.metrics();
  }
}
