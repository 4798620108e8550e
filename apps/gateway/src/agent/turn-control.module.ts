import { Module } from '@nestjs/common';
import { TurnCancellation } from './turn-cancellation';

/** Cancellation alone, so sessions can request it without depending on the runner. */
@Module({ providers: [TurnCancellation], exports: [TurnCancellation] })
export class TurnControlModule {}
