import { Module } from '@nestjs/common';
import { WorkspacesModule } from '../workspaces/workspaces.module';
import { NotesController } from './notes.controller';
import { NotesRepository } from './notes.repository';

@Module({
  imports: [WorkspacesModule],
  controllers: [NotesController],
  providers: [NotesRepository],
  exports: [NotesRepository],
})
export class NotesModule {}
