import { Injectable } from '@nestjs/common';
import type { TurnAccountingPort } from '../agent-core/ports';
import { QuotaService } from './quota.service';
import { UsageService } from './usage.service';

/** A finished turn: counted in the user's usage, and its running-turn place given back. */
@Injectable()
export class TurnAccounting implements TurnAccountingPort {
  constructor(
    private readonly usage: UsageService,
    private readonly quotas: QuotaService,
  ) {}

  async turnEnded(turn: Parameters<TurnAccountingPort['turnEnded']>[0]): Promise<void> {
    await this.quotas.releaseTurn(turn.userId, turn.sessionId, turn.turnId);
    await this.usage.recordTurn(turn.userId, turn.model, turn.toolCalls);
  }
}
