import { Module } from '@nestjs/common';
import { EventLogRepository } from './event-log.repository';
import { EventStreamService } from './event-stream.service';

@Module({ providers: [EventLogRepository, EventStreamService], exports: [EventLogRepository, EventStreamService] })
export class EventsModule {}
