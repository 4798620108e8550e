import { Body, Controller, Get, Put, UseGuards } from '@nestjs/common';
import { putInstructionsBodySchema } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { UserInstructionsRepository } from './user-instructions.repository';

/** Personal instructions; an empty `content` removes them. */
@Controller('v1/me/instructions')
@UseGuards(UserAuthGuard)
export class InstructionsController {
  constructor(private readonly instructions: UserInstructionsRepository) {}

  @Get()
  async get(@CurrentPrincipal() p: Principal) {
    const stored = await this.instructions.get(p.userId);
    return { content: stored?.content ?? '', updatedAt: stored?.updatedAt ?? null };
  }

  @Put()
  async put(@CurrentPrincipal() p: Principal, @Body(new ZodValidationPipe(putInstructionsBodySchema)) body: { content: string }) {
    await this.instructions.put(p.userId, body.content);
    return this.get(p);
  }
}
