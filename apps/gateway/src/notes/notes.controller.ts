import { Body, Controller, Param } from '@nestjs/common';
import { apiRoutes, workspaceIdSchema } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { noteIdSchema } from '../common/ids';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { NotesRepository } from './notes.repository';

const workspaceId = new ZodValidationPipe(workspaceIdSchema);

/** A workspace's shared notes, which every model working in it reads; only the owner sees them. */
@Controller()
export class NotesController {
  constructor(
    private readonly notes: NotesRepository,
    private readonly workspaces: WorkspacesService,
  ) {}

  @Route(apiRoutes.notes)
  async list(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    await this.workspaces.assertOwned(p.userId, id);
    return { notes: await this.notes.list(id) };
  }

  @Route(apiRoutes.addNote)
  async add(
    @CurrentPrincipal() p: Principal,
    @Param('id', workspaceId) id: string,
    @Body() body: { text: string },
  ) {
    await this.workspaces.assertOwned(p.userId, id);
    return this.notes.add(id, { text: body.text, source: 'user', author: p.userId });
  }

  @Route(apiRoutes.clearNotes)
  async clear(@CurrentPrincipal() p: Principal, @Param('id', workspaceId) id: string) {
    await this.workspaces.assertOwned(p.userId, id);
    return { deleted: await this.notes.clear(id) };
  }

  @Route(apiRoutes.deleteNote)
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('id', workspaceId) id: string,
    @Param('noteId', new ZodValidationPipe(noteIdSchema)) noteId: string,
  ) {
    await this.workspaces.assertOwned(p.userId, id);
    await this.notes.remove(id, noteId);
  }
}
