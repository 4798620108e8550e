import { Inject, Injectable } from '@nestjs/common';
import { describeCostExcess, type RequestCostLimits } from '@weft/contracts';
import { requestCostLimitsOf } from '@weft/config';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { badRequest } from './compat-error';
import { exceededCost, type CostedApi } from './request-limits';

/** The cost limits of the compatible APIs' bodies (REQUEST_SCHEMA_*, REQUEST_*TOOLS*), read once at boot. */
@Injectable()
export class CompatRequestLimits {
  readonly limits: RequestCostLimits;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewaySettings) {
    this.limits = requestCostLimitsOf(config);
  }

  /** Refuses a body past a cost limit with a 400 naming the field, its measure, the limit and its setting. */
  assertWithin(body: unknown, api: CostedApi): void {
    const excess = exceededCost(body, api, this.limits);
    if (!excess) return;
    const param = excess.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${p}`)).join('');
    throw badRequest(describeCostExcess(excess, param), param);
  }
}
