import { Body, Controller, Get, HttpCode, Param, Post, Put, UseGuards } from '@nestjs/common';
import { workspaceIdSchema } from '@weft/contracts';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { sessionIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type AnswerPermissionBody,
  type PutRulesBody,
  answerPermissionBodySchema,
  permissionRequestIdSchema,
  putRulesBodySchema,
} from '@weft/contracts';
import { PermissionsService } from './permissions.service';

const sessionId = new ZodValidationPipe(sessionIdSchema);
const workspaceId = new ZodValidationPipe(workspaceIdSchema);
const rulesBody = new ZodValidationPipe(putRulesBodySchema);

/** Rules of the scopes a user owns: their own, a workspace's, a session's. */
@Controller('v1/permissions')
@UseGuards(UserAuthGuard)
export class PermissionRulesController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get('user')
  getUser(@CurrentPrincipal() p: Principal) {
    return this.permissions.getRules(p.userId, { scope: 'user' });
  }

  @Put('user')
  putUser(@CurrentPrincipal() p: Principal, @Body(rulesBody) body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'user' }, body);
  }

  @Get('workspace/:id')
  getWorkspace(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    return this.permissions.getRules(p.userId, { scope: 'workspace', id });
  }

  @Put('workspace/:id')
  putWorkspace(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string, @Body(rulesBody) body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'workspace', id }, body);
  }

  @Get('session/:id')
  getSession(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string) {
    return this.permissions.getRules(p.userId, { scope: 'session', id });
  }

  @Put('session/:id')
  putSession(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string, @Body(rulesBody) body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'session', id }, body);
  }
}

/** The answer to a run's question, and the questions still open. */
@Controller('v1/sessions')
@UseGuards(UserAuthGuard)
export class PermissionRequestsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get(':id/permissions')
  pending(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string) {
    return this.permissions.pending(p.userId, id);
  }

  @Post(':id/permissions/:requestId')
  @HttpCode(200)
  answer(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionId) id: string,
    @Param('requestId', new ZodValidationPipe(permissionRequestIdSchema)) requestId: string,
    @Body(new ZodValidationPipe(answerPermissionBodySchema)) body: AnswerPermissionBody,
  ) {
    return this.permissions.answer(p.userId, id, requestId, body);
  }
}

/** Server policy: the admin's rules, which no other scope can loosen. */
@Controller('v1/admin/permissions')
@UseGuards(AdminGuard)
export class AdminPermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Get()
  get() {
    return this.permissions.getServerRules();
  }

  @Put()
  put(@Body(rulesBody) body: PutRulesBody) {
    return this.permissions.putServerRules(body);
  }
}
