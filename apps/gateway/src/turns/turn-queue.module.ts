import { Module } from '@nestjs/common';
import { TurnQueue } from './turn-queue';

/** The producer alone, so sessions can enqueue without depending on the runner. */
@Module({ providers: [TurnQueue], exports: [TurnQueue] })
export class TurnQueueModule {}
