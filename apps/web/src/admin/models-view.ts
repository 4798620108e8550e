import type { AdminModel } from '@weft/contracts';

/** Replayed scripts and the demo model with random weights: every stack has them, and they buried the real ones. */
export function isTestModel(model: Pick<AdminModel, 'id' | 'provider'>): boolean {
  return model.provider === 'scripted' || model.id === 'tiny';
}

/**
 * What the Models panel lists: pulled models first, then the other real ones, each group by id;
 * the scripted and test models last, and only when asked for. `hidden` counts those left out.
 */
export function modelsView(models: readonly AdminModel[], showTest: boolean): { shown: AdminModel[]; hidden: number } {
  const rank = (model: AdminModel) => (isTestModel(model) ? 2 : model.origin === 'pulled' ? 0 : 1);
  const sorted = [...models].sort((a, b) => rank(a) - rank(b) || a.id.localeCompare(b.id));
  const shown = showTest ? sorted : sorted.filter((model) => !isTestModel(model));
  return { shown, hidden: models.length - shown.length };
}
