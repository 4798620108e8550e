import { Body, Controller, Param } from '@nestjs/common';
import { workspaceIdSchema } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { sessionIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import {
  type AnswerPermissionBody,
  type PutRulesBody,
  apiRoutes,
  permissionRequestIdSchema,
} from '@weft/contracts';
import { PermissionsService } from './permissions.service';

const sessionId = new ZodValidationPipe(sessionIdSchema);
const workspaceId = new ZodValidationPipe(workspaceIdSchema);

/** Rules of the scopes a user owns: their own, a workspace's, a session's. */
@Controller()
export class PermissionRulesController {
  constructor(private readonly permissions: PermissionsService) {}

  @Route(apiRoutes.userRules)
  getUser(@CurrentPrincipal() p: Principal) {
    return this.permissions.getRules(p.userId, { scope: 'user' });
  }

  @Route(apiRoutes.setUserRules)
  putUser(@CurrentPrincipal() p: Principal, @Body() body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'user' }, body);
  }

  @Route(apiRoutes.workspaceRules)
  getWorkspace(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    return this.permissions.getRules(p.userId, { scope: 'workspace', id });
  }

  @Route(apiRoutes.setWorkspaceRules)
  putWorkspace(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string, @Body() body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'workspace', id }, body);
  }

  @Route(apiRoutes.sessionRules)
  getSession(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string) {
    return this.permissions.getRules(p.userId, { scope: 'session', id });
  }

  @Route(apiRoutes.setSessionRules)
  putSession(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string, @Body() body: PutRulesBody) {
    return this.permissions.putRules(p.userId, { scope: 'session', id }, body);
  }
}

/** The answer to a run's question, and the questions still open. */
@Controller()
export class PermissionRequestsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Route(apiRoutes.pendingPermissions)
  pending(@CurrentPrincipal() p: Principal, @Param('id', sessionId) id: string) {
    return this.permissions.pending(p.userId, id);
  }

  @Route(apiRoutes.answerPermission)
  answer(
    @CurrentPrincipal() p: Principal,
    @Param('id', sessionId) id: string,
    @Param('requestId', new ZodValidationPipe(permissionRequestIdSchema)) requestId: string,
    @Body() body: AnswerPermissionBody,
  ) {
    return this.permissions.answer(p.userId, id, requestId, body);
  }
}

/** Server policy: the admin's rules, which no other scope can loosen. */
@Controller()
export class AdminPermissionsController {
  constructor(private readonly permissions: PermissionsService) {}

  @Route(apiRoutes.serverRules)
  get() {
    return this.permissions.getServerRules();
  }

  @Route(apiRoutes.setServerRules)
  put(@Body() body: PutRulesBody) {
    return this.permissions.putServerRules(body);
  }
}
