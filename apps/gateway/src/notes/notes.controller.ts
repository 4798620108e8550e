import { Body, Controller, Delete, Get, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { addNoteBodySchema, workspaceIdSchema } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { noteIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { NotesRepository } from './notes.repository';

const workspaceId = new ZodValidationPipe(workspaceIdSchema);

/** A workspace's shared notes, which every model working in it reads; only the owner sees them. */
@Controller('v1/workspaces/:id/notes')
@UseGuards(UserAuthGuard)
export class NotesController {
  constructor(
    private readonly notes: NotesRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  @Get()
  async list(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    await this.workspaces.assertOwned(p.userId, id);
    return { notes: await this.notes.list(id) };
  }

  @Post()
  @HttpCode(201)
  async add(
    @CurrentPrincipal() p: Principal,
    @Param('id', workspaceId) id: string,
    @Body(new ZodValidationPipe(addNoteBodySchema)) body: { text: string },
  ) {
    await this.workspaces.assertOwned(p.userId, id);
    return this.notes.add(id, { text: body.text, source: 'user', author: p.userId });
  }

  @Delete()
  async clear(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    await this.workspaces.assertOwned(p.userId, id);
    return { deleted: await this.notes.clear(id) };
  }

  @Delete(':noteId')
  @HttpCode(204)
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('id', workspaceId) id: string,
    @Param('noteId', new ZodValidationPipe(noteIdSchema)) noteId: string,
  ) {
    await this.workspaces.assertOwned(p.userId, id);
    await this.notes.remove(id, noteId);
  }
}
