import { Module } from '@nestjs/common';
import { TurnCancellation } from './turn-cancellation';
import { TurnQueueModule } from './turn-queue.module';

/** Cancellation alone, so sessions can request it without depending on the runner. */
@Module({ imports: [TurnQueueModule], providers: [TurnCancellation], exports: [TurnCancellation] })
export class TurnControlModule {}
