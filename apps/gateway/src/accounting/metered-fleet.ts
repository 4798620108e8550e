import { Inject, Injectable, Optional } from '@nestjs/common';
import type { GenerateChunk, GenerateRequest, ModelInfo } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ModelAccess } from '../auth/oidc/model-access';
import { FleetInferenceClient, type FleetGenerateOptions, type FleetInference } from '../fleet/fleet-inference.client';
import { LOGGER } from '../infra/tokens';
import { inUsersTerms, ModelsService } from '../models/models.service';
import { QuotaService } from './quota.service';
import type { Reservation } from './quota-reservations';
import { tokenReservation } from './reservation-bounds';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * The fleet as users reach it, from agent turns and the compatible APIs alike: a generation
 * reserves its bound against the user's tokens for the day before it starts (refused when that
 * does not fit), goes to the worker with the user's fair-share weight, and when it ends its
 * reservation is replaced by its usage, or given back if it ended without one.
 */
@Injectable()
export class MeteredFleet implements FleetInference {
  constructor(
    @Inject(FleetInferenceClient) private readonly fleet: FleetInference,
    private readonly limits: UserLimitsRepository,
    private readonly quotas: QuotaService,
    private readonly usage: UsageService,
    @Inject(ModelsService) private readonly models: Pick<ModelsService, 'list'>,
    @Inject(LOGGER) private readonly log: Logger,
    // Optional so that a test may build the fleet without the sign-in module.
    @Optional() private readonly access?: ModelAccess,
  ) {}

  async *generate(request: GenerateRequest, options: FleetGenerateOptions): AsyncGenerator<GenerateChunk> {
    const user = request.user;
    if (!user) {
      yield* this.fleet.generate(request, options);
      return;
    }
    try {
      yield* this.metered(request, user, options);
    } catch (error) {
      throw await inUsersTerms(error, request.model, () => this.usableModels(user.id));
    }
  }

  private async *metered(request: GenerateRequest, user: { id: string }, options: FleetGenerateOptions): AsyncGenerator<GenerateChunk> {
    // The user's groups at the identity provider may keep them from this model (deny wins).
    await this.access?.assertAllowed(user.id, request.model);
    const { weight, tokensPerDay } = await this.limits.effective(user.id);
    const weighted = { ...request, user: { id: user.id, weight } };
    if (request.countOnly) {
      await this.quotas.assertTokensLeft(user.id, tokensPerDay);
      yield* this.fleet.generate(weighted, options);
      return;
    }
    const reservation = tokensPerDay === 0 ? undefined : await this.quotas.reserveTokens(user.id, tokensPerDay, tokenReservation(request, await this.contextSize(request.model)));
    const renew = reservation ? this.quotas.tokenLease(reservation) : undefined;
    let settled = false;
    try {
      for await (const chunk of this.fleet.generate(weighted, options)) {
        if (chunk.type === 'done') {
          await this.usage.recordGeneration(user.id, request.model, chunk.result.usage, reservation);
          settled = true;
        } else await renew?.();
        yield chunk;
      }
    } finally {
      // Failed, cancelled, or its caller went away: no figure from the worker, so nothing counted.
      if (reservation && !settled) await this.giveBack(reservation);
    }
  }

  private async usableModels(userId: string): Promise<ModelInfo[]> {
    const { models } = await this.models.list();
    return this.access ? this.access.filter(userId, models) : models;
  }

  private async contextSize(model: string): Promise<number | undefined> {
    return (await this.models.list()).models.find((m) => m.id === model)?.contextSize;
  }

  /** A failure here must not hide the generation's own: the reservation then expires on its own. */
  private async giveBack(reservation: Reservation): Promise<void> {
    try {
      await this.quotas.release(reservation);
    } catch (err) {
      this.log.warn({ err }, 'could not give back a token reservation; it expires on its own');
    }
  }
}
