import { Global, Module } from '@nestjs/common';
import { MeteredFleet } from './metered-fleet';
import { MetricsController } from './metrics.controller';
import { UsageMetrics } from './usage-metrics';
import { QuotaService } from './quota.service';
import { TurnAccounting } from './turn-accounting';
import { AdminUsageController, MeUsageController } from './usage.controller';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Per-user limits, quotas and usage. Global: the auth guard counts requests, sessions claim
 * turn places, and agent turns and the compatible APIs generate through `MeteredFleet`.
 */
@Global()
@Module({
  controllers: [MeUsageController, AdminUsageController, MetricsController],
  providers: [UserLimitsRepository, UsageService, UsageMetrics, QuotaService, MeteredFleet, TurnAccounting],
  exports: [UserLimitsRepository, UsageService, QuotaService, MeteredFleet, TurnAccounting],
})
export class AccountingModule {}
