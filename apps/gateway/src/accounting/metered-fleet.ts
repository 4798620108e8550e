import { Injectable } from '@nestjs/common';
import type { GenerateChunk, GenerateRequest } from '@weft/contracts';
import { FleetInferenceClient, type FleetGenerateOptions, type FleetInference } from '../fleet/fleet-inference.client';
import { QuotaService } from './quota.service';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * The fleet as users reach it, from agent turns and the compatible APIs alike: a generation of a
 * user past their tokens for the day is refused before it starts, goes to the worker with the
 * user's fair-share weight, and its usage is counted when it finishes.
 */
@Injectable()
export class MeteredFleet implements FleetInference {
  constructor(
    private readonly fleet: FleetInferenceClient,
    private readonly limits: UserLimitsRepository,
    private readonly quotas: QuotaService,
    private readonly usage: UsageService,
  ) {}

  async *generate(request: GenerateRequest, options: FleetGenerateOptions): AsyncGenerator<GenerateChunk> {
    const user = request.user;
    if (!user) {
      yield* this.fleet.generate(request, options);
      return;
    }
    const { weight, tokensPerDay } = await this.limits.effective(user.id);
    await this.quotas.assertTokensLeft(user.id, tokensPerDay);
    for await (const chunk of this.fleet.generate({ ...request, user: { id: user.id, weight } }, options)) {
      if (chunk.type === 'done' && !request.countOnly) await this.usage.recordGeneration(user.id, request.model, chunk.result.usage);
      yield chunk;
    }
  }
}
