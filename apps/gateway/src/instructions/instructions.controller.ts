import { Body, Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { UserInstructionsRepository } from './user-instructions.repository';

/** Personal instructions; an empty `content` removes them. */
@Controller()
export class InstructionsController {
  constructor(private readonly instructions: UserInstructionsRepository) {}

  @Route(apiRoutes.instructions)
  async get(@CurrentPrincipal() p: Principal) {
    const stored = await this.instructions.get(p.userId);
    return { content: stored?.content ?? '', updatedAt: stored?.updatedAt ?? null };
  }

  @Route(apiRoutes.setInstructions)
  async put(@CurrentPrincipal() p: Principal, @Body() body: { content: string }) {
    await this.instructions.put(p.userId, body.content);
    return this.get(p);
  }
}
