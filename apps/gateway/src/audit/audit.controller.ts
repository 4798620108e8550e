import { Controller, Query } from '@nestjs/common';
import { type auditQuerySchema, apiRoutes } from '@weft/contracts';
import type { z } from 'zod';
import { Route } from '../common/api-route.decorator';
import { AuditTrailRepository } from './audit-trail.repository';

/** The audit trail for admins: tool calls (who, session, tool, arguments, decision, outcome) and admin actions. */
@Controller()
export class AuditController {
  constructor(private readonly trail: AuditTrailRepository) {}

  @Route(apiRoutes.audit)
  page(@Query() query: z.output<typeof auditQuerySchema>) {
    return this.trail.page(query);
  }
}
