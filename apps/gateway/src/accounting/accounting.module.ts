import { Global, Module } from '@nestjs/common';
import { ModelsModule } from '../models/models.module';
import { MeteredEmbeddings } from './metered-embeddings';
import { MeteredFleet } from './metered-fleet';
import { MetricsController } from './metrics.controller';
import { UsageMetrics } from './usage-metrics';
import { QuotaReservations } from './quota-reservations';
import { QuotaService } from './quota.service';
import { TurnAccounting } from './turn-accounting';
import { AdminUsageController, MeUsageController } from './usage.controller';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Per-user limits, quotas and usage. Global: the auth guard counts requests, sessions claim
 * turn places, and agent turns and the compatible APIs generate through `MeteredFleet` (embeddings
 * through `MeteredEmbeddings`).
 */
@Global()
@Module({
  // The models' context sizes bound what a generation reserves.
  imports: [ModelsModule],
  controllers: [MeUsageController, AdminUsageController, MetricsController],
  providers: [UserLimitsRepository, UsageService, UsageMetrics, QuotaReservations, QuotaService, MeteredFleet, MeteredEmbeddings, TurnAccounting],
  exports: [UserLimitsRepository, UsageService, QuotaService, MeteredFleet, MeteredEmbeddings, TurnAccounting],
})
export class AccountingModule {}
