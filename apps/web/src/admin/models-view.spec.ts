import type { AdminModel } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { modelsView } from './models-view';

const model = (id: string, provider: string, origin: AdminModel['origin']) => ({ id, provider, origin, contextSize: 4096 }) as AdminModel;

const registry = [
  model('scripted/demo', 'scripted', 'config'),
  model('tiny', 'llama', 'config'),
  model('qwen2.5-coder-7b', 'llama', 'pulled'),
  model('scripted/tools', 'scripted', 'config'),
  model('gpt-4o', 'openai', 'config'),
  model('coder-14b', 'llama', 'pulled'),
];

describe('the Models panel list', () => {
  it('lists the real models, pulled ones first, and counts the scripted and test ones it hides', () => {
    const { shown, hidden } = modelsView(registry, false);
    expect(shown.map((m) => m.id)).toEqual(['coder-14b', 'qwen2.5-coder-7b', 'gpt-4o']);
    expect(hidden).toBe(3);
  });

  it('adds the scripted and test models last when asked', () => {
    const { shown, hidden } = modelsView(registry, true);
    expect(shown.map((m) => m.id)).toEqual(['coder-14b', 'qwen2.5-coder-7b', 'gpt-4o', 'scripted/demo', 'scripted/tools', 'tiny']);
    expect(hidden).toBe(0);
  });
});
