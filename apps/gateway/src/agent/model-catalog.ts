import type { ModelsService } from '../models/models.service';
import type { ModelContextPort } from '../agent-core/ports';

/** Context lengths and roles from the models the fleet announces. */
export function modelCatalog(models: ModelsService): ModelContextPort {
  const find = async (id: string) => (await models.list()).models.find((m) => m.id === id);
  return {
    contextSize: async (model) => (await find(model))?.contextSize,
    roles: async (model) => (await find(model))?.roles ?? [],
    withRole: async (role) => (await models.list()).models.find((m) => m.roles?.includes(role))?.id,
  };
}
