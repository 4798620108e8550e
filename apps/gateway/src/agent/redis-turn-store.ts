import type { ChatMessage, SessionEvent } from '@weft/contracts';
import type { EventLogRepository } from '../events/event-log.repository';
import type { SessionsRepository } from '../sessions/sessions.repository';
import type { TurnSession, TurnStore } from './ports';

/** The runner's store: session records and messages, and the event log. */
export class RedisTurnStore implements TurnStore {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly events: EventLogRepository,
  ) {}

  session(sessionId: string): Promise<TurnSession | undefined> {
    return this.sessions.find(sessionId);
  }
  messages(sessionId: string): Promise<ChatMessage[]> {
    return this.sessions.messages(sessionId);
  }
  appendMessage(sessionId: string, message: ChatMessage): Promise<void> {
    return this.sessions.appendMessage(sessionId, message);
  }
  async appendEvent(sessionId: string, event: SessionEvent): Promise<void> {
    await this.events.append(sessionId, event);
  }
  endTurn(sessionId: string, turnId: string): Promise<void> {
    return this.sessions.endTurn(sessionId, turnId);
  }
}
