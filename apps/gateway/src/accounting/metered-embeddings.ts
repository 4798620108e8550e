import { Inject, Injectable, Optional } from '@nestjs/common';
import type { EmbedRequest, EmbedResult, ModelInfo } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { ModelAccess } from '../auth/oidc/model-access';
import { FleetEmbeddings, type FleetEmbedOptions } from '../fleet/fleet-embeddings.client';
import { LOGGER } from '../infra/tokens';
import { inUsersTerms, ModelsService } from '../models/models.service';
import { QuotaService } from './quota.service';
import type { Reservation } from './quota-reservations';
import { embeddingReservation } from './reservation-bounds';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Embeddings as users reach them, ruled and counted as generations are (`MeteredFleet`): the
 * user's groups must allow the model, the request reserves its bound against the user's tokens
 * for the day before any worker hears of it, its inputs take turns on the worker with the
 * user's fair-share weight, and its prompt tokens replace the reservation as the user's usage
 * (one generation), or the reservation is given back when it fails or is cancelled.
 */
@Injectable()
export class MeteredEmbeddings {
  constructor(
    private readonly fleet: FleetEmbeddings,
    private readonly limits: UserLimitsRepository,
    private readonly quotas: QuotaService,
    private readonly usage: UsageService,
    @Inject(ModelsService) private readonly models: Pick<ModelsService, 'list'>,
    @Inject(LOGGER) private readonly log: Logger,
    // Optional so that a test may build it without the sign-in module.
    @Optional() private readonly access?: ModelAccess,
  ) {}

  async embed(userId: string, request: Pick<EmbedRequest, 'model' | 'input' | 'requestId'>, options: FleetEmbedOptions): Promise<EmbedResult> {
    await this.access?.assertAllowed(userId, request.model);
    const { weight, tokensPerDay } = await this.limits.effective(userId);
    const contextSize = (await this.models.list()).models.find((m) => m.id === request.model)?.contextSize;
    const reservation = tokensPerDay === 0 ? undefined : await this.quotas.reserveTokens(userId, tokensPerDay, embeddingReservation(request.input, contextSize));
    let settled = false;
    try {
      const result = await this.fleet.embed({ ...request, user: { id: userId, weight } }, options);
      const usage = { promptTokens: result.promptTokens, completionTokens: 0, cachedTokens: 0, evaluatedTokens: result.promptTokens };
      await this.usage.recordGeneration(userId, request.model, usage, reservation);
      settled = true;
      return result;
    } catch (error) {
      throw await inUsersTerms(error, request.model, () => this.usableModels(userId));
    } finally {
      if (reservation && !settled) await this.giveBack(reservation);
    }
  }

  private async usableModels(userId: string): Promise<ModelInfo[]> {
    const { models } = await this.models.list();
    return this.access ? this.access.filter(userId, models) : models;
  }

  /** A failure here must not hide the request's own: the reservation then expires on its own. */
  private async giveBack(reservation: Reservation): Promise<void> {
    try {
      await this.quotas.release(reservation);
    } catch (err) {
      this.log.warn({ err }, 'could not give back a token reservation; it expires on its own');
    }
  }
}
