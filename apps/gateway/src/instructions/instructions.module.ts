import { Module } from '@nestjs/common';
import { InstructionsController } from './instructions.controller';
import { InstructionsLoader } from './instructions.loader';
import { UserInstructionsRepository } from './user-instructions.repository';

@Module({
  controllers: [InstructionsController],
  providers: [UserInstructionsRepository, InstructionsLoader],
  exports: [InstructionsLoader],
})
export class InstructionsModule {}
