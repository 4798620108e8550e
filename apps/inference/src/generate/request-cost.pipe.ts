import { Inject, Injectable, type PipeTransform } from '@nestjs/common';
import { requestCostLimitsOf, type InferenceConfig } from '@weft/config';
import { AppError, ErrorCode, describeCostExcess, generateRequestExcess, type RequestCostLimits } from '@weft/contracts';
import { INFERENCE_CONFIG } from '../tokens';

/**
 * The worker's own check of a generate request's cost limits (REQUEST_SCHEMA_*, REQUEST_*TOOLS*),
 * before the contract's schema walks the message and before any driver builds a grammar: the
 * gateway checks the same, but a worker on the fleet's NATS also takes requests from other callers.
 */
@Injectable()
export class RequestCostPipe implements PipeTransform<unknown, unknown> {
  private readonly limits: RequestCostLimits;

  constructor(@Inject(INFERENCE_CONFIG) config: InferenceConfig) {
    this.limits = requestCostLimitsOf(config);
  }

  transform(request: unknown): unknown {
    const excess = generateRequestExcess(request, this.limits);
    if (!excess) return request;
    const field = excess.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${p}`)).join('');
    throw new AppError(ErrorCode.InvalidRequest, describeCostExcess(excess, field), { param: field, limit: excess.limit, ...(excess.setting ? { setting: excess.setting } : {}) });
  }
}
