import { describe, expect, it } from 'vitest';
import { mayUse, modelRulesOf } from './model-access';

describe('model access from groups', () => {
  const byGroup = { interns: { allow: ['tiny', 'qwen*'] }, platform: { allow: ['*'] }, contractors: { deny: ['qwen-72b'] } };

  it('allows every model to a user whose groups have no allow list', () => {
    expect(mayUse(modelRulesOf(['sales'], byGroup), 'anything')).toBe(true);
  });

  it('allows what some group allows, by id or glob, and nothing else', () => {
    const rules = modelRulesOf(['interns'], byGroup);
    expect(mayUse(rules, 'tiny')).toBe(true);
    expect(mayUse(rules, 'qwen-7b')).toBe(true);
    expect(mayUse(rules, 'llama-70b')).toBe(false);
  });

  it('lets a deny win over any allow, from any of the user’s groups', () => {
    expect(mayUse(modelRulesOf(['platform', 'contractors'], byGroup), 'qwen-72b')).toBe(false);
    expect(mayUse(modelRulesOf(['platform', 'contractors'], byGroup), 'qwen-7b')).toBe(true);
    expect(mayUse(modelRulesOf(['contractors'], byGroup), 'llama-70b')).toBe(true);
  });
});
