import { Body, Controller, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { sessionIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type CreateSessionBody,
  type PostMessageBody,
  createSessionBodySchema,
  postMessageBodySchema,
} from './sessions.schemas';
import { SessionsService } from './sessions.service';

export const sessionIdPipe = new ZodValidationPipe(sessionIdSchema);

@Controller('v1/sessions')
@UseGuards(UserAuthGuard)
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() p: Principal, @Body(new ZodValidationPipe(createSessionBodySchema)) body: CreateSessionBody) {
    return this.sessions.create(p.userId, body);
  }

  @Get()
  list(@CurrentPrincipal() p: Principal) {
    return this.sessions.list(p.userId);
  }

  @Get(':id')
  get(@CurrentPrincipal() p: Principal, @Param('id', sessionIdPipe) id: string) {
    return this.sessions.get(p.userId, id);
  }

  @Post(':id/messages')
  @HttpCode(202)
  post(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionIdPipe) id: string,
    @Body(new ZodValidationPipe(postMessageBodySchema)) body: PostMessageBody,
  ) {
    return this.sessions.postMessage(p.userId, id, body);
  }
}
