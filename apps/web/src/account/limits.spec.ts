import { describe, expect, it } from 'vitest';
import { describeLimit, limitForm, overridesFromForm, usedShare } from './limits';

describe('limits', () => {
  it('reads 0 as no limit, and the weight as a multiplier', () => {
    expect(describeLimit('tokensPerDay', 0)).toBe('no limit');
    expect(describeLimit('tokensPerDay', 200000)).toBe('200,000');
    expect(describeLimit('sandboxSecondsPerDay', 3600)).toBe('3,600 s');
    expect(describeLimit('weight', 2)).toBe('× 2');
  });

  it("gives the share of a day's quota used, capped at all of it, and none for a quota that is off", () => {
    expect(usedShare(250, 1000)).toBe(0.25);
    expect(usedShare(1200, 1000)).toBe(1);
    expect(usedShare(1200, 0)).toBeNull();
  });

  it('fills the form with the overrides, leaving defaults empty, and reads it back', () => {
    const form = limitForm({ tokensPerDay: 5000, weight: 3 });
    expect(form).toEqual({ requestsPerMinute: '', concurrentTurns: '', tokensPerDay: '5000', sandboxSecondsPerDay: '', weight: '3' });
    expect(overridesFromForm({ ...form, concurrentTurns: ' 0 ' })).toEqual({ overrides: { tokensPerDay: 5000, weight: 3, concurrentTurns: 0 } });
    expect(overridesFromForm(limitForm({}))).toEqual({ overrides: {} });
  });

  it('names each field the gateway would refuse', () => {
    const form = limitForm({});
    expect(overridesFromForm({ ...form, tokensPerDay: '1.5', weight: '0', requestsPerMinute: '-3', concurrentTurns: 'ten' })).toEqual({
      errors: {
        tokensPerDay: 'a whole number, or empty for the default',
        weight: 'from 1 to 100',
        requestsPerMinute: 'a whole number, or empty for the default',
        concurrentTurns: 'a whole number, or empty for the default',
      },
    });
    expect(overridesFromForm({ ...form, sandboxSecondsPerDay: '2000000000000' })).toEqual({ errors: { sandboxSecondsPerDay: 'from 0 to 1,000,000,000,000' } });
  });
});
