import { Body, Controller, Param, Query, Res } from '@nestjs/common';
import { stringify } from 'csv-stringify/sync';
import type { Response } from 'express';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { AdminAudit } from '../auth/admin-audit';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { userIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { UsersRepository } from '../users/users.repository';
import { AppError, ErrorCode, apiRoutes } from '@weft/contracts';
import { type UsageQuery, usageQuerySchema } from './usage-query';
import { USAGE_METRICS, UsageService, usageTotals, type UsageRow } from './usage.service';
import { type UserLimitOverrides, UserLimitsRepository } from './user-limits';

/** The caller's own usage and limits. */
@Controller()
export class MeUsageController {
  constructor(
    private readonly usage: UsageService,
    private readonly limits: UserLimitsRepository,
  ) {}

  @Route(apiRoutes.myUsage)
  async usageOf(@CurrentPrincipal() principal: Principal, @Query(new ZodValidationPipe(usageQuerySchema)) query: UsageQuery) {
    const rows = await this.usage.query({ from: query.from, to: query.to, userId: principal.userId, model: query.model });
    return { from: query.from, to: query.to, totals: usageTotals(rows), rows: rows.map(({ userId: _, ...row }) => row) };
  }

  @Route(apiRoutes.myLimits)
  async limitsOf(@CurrentPrincipal() principal: Principal) {
    return { limits: await this.limits.effective(principal.userId), tokensUsedToday: await this.usage.quotaTokensToday(principal.userId) };
  }
}

/** Every user's usage, and each user's limits, for the admin. */
@Controller()
export class AdminUsageController {
  constructor(
    private readonly usage: UsageService,
    private readonly limits: UserLimitsRepository,
    private readonly users: UsersRepository,
    private readonly audit: AdminAudit,
  ) {}

  @Route(apiRoutes.allUsage)
  async usageOfAll(@Query(new ZodValidationPipe(usageQuerySchema)) query: UsageQuery, @Res({ passthrough: true }) res: Response) {
    const rows = await this.usage.query({ from: query.from, to: query.to, userId: query.user, model: query.model });
    if (query.format === 'csv') {
      res.type('text/csv').attachment(`weft-usage-${query.from}-${query.to}.csv`);
      return csv(rows);
    }
    return { from: query.from, to: query.to, totals: usageTotals(rows), rows };
  }

  @Route(apiRoutes.userLimits)
  async limitsOf(@Param('id', new ZodValidationPipe(userIdSchema)) userId: string) {
    await this.assertUser(userId);
    return this.describe(userId);
  }

  /** Replaces the user's overrides; `{}` puts every limit back to the server default. */
  @Route(apiRoutes.setUserLimits)
  async setLimits(@CurrentAdmin() actor: AdminActor, @Param('id', new ZodValidationPipe(userIdSchema)) userId: string, @Body() body: UserLimitOverrides) {
    await this.assertUser(userId);
    await this.limits.replace(userId, body);
    await this.audit.record(actor, 'limits.set', userId, { ...body });
    return this.describe(userId);
  }

  private async describe(userId: string) {
    const overrides = await this.limits.overrides(userId);
    return { userId, defaults: this.limits.defaults(), overrides, effective: { ...this.limits.defaults(), ...overrides }, tokensUsedToday: await this.usage.quotaTokensToday(userId) };
  }

  private async assertUser(userId: string): Promise<void> {
    if (!(await this.users.exists(userId))) throw new AppError(ErrorCode.NotFound, `User ${userId} not found`);
  }
}

function csv(rows: readonly UsageRow[]): string {
  const columns = ['date', 'userId', 'model', ...USAGE_METRICS];
  return stringify(rows.map((row) => columns.map((c) => row[c as keyof UsageRow])), { header: true, columns });
}
