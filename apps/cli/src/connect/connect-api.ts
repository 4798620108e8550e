import { type ListedModel, apiRoutes } from '@weft/contracts';
import { ApiClient } from '../api-client';
import { UsageError } from '../errors';

/** What `weft connect` asks the gateway: the models, and a new key of the user's own. */
export class ConnectApi extends ApiClient {
  /** A new key named `name` for the caller; the gateway shows it this once. */
  async createKey(name: string): Promise<string> {
    return (await this.api.json(apiRoutes.createMyKey, { body: { name } })).key;
  }
}

/** `wanted`, else the first model that is not a scripted test model, else the first. */
export function pickModel(models: readonly ListedModel[], wanted: string | undefined): ListedModel {
  if (wanted !== undefined) {
    const model = models.find((m) => m.id === wanted);
    if (!model) throw new UsageError(`no model "${wanted}" on this gateway; it serves: ${models.map((m) => m.id).join(', ') || '(none)'}`);
    return model;
  }
  const model = models.find((m) => m.provider !== 'scripted') ?? models[0];
  if (!model) throw new UsageError('the gateway serves no model yet: ask your admin to pull one (`weft admin models pull`)');
  return model;
}
