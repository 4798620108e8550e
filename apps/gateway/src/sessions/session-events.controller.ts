import { Controller, Param, Query, Req, Res } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { streamIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { EventStreamService } from '../events/event-stream.service';
import { LastEventId } from './last-event-id.decorator';
import { sessionIdPipe } from './sessions.controller';
import { SessionsService } from './sessions.service';

const afterQuerySchema = z.object({ after: streamIdSchema.optional() });

@Controller()
export class SessionEventsController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly stream: EventStreamService,
  ) {}

  /** `Last-Event-ID` (sent by a reconnecting EventSource) wins over `?after=`. */
  @Route(apiRoutes.events)
  async events(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Query(new ZodValidationPipe(afterQuerySchema)) query: z.infer<typeof afterQuerySchema>,
    @LastEventId() lastEventId: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ) {
    await this.sessions.owned(p.userId, id);
    await this.stream.stream(req, res, id, lastEventId ?? query.after ?? '0-0', p);
  }
}
