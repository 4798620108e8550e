import { describe, expect, it } from 'vitest';
import { quotaClassOf } from './group-limits';

describe('a user’s quota class from their groups', () => {
  const classes = { interns: { tokensPerDay: 100_000, weight: 1 }, platform: { tokensPerDay: 0, weight: 4 }, reviewers: { tokensPerDay: 500_000, concurrentTurns: 2 } };

  it('is empty for groups without a class', () => {
    expect(quotaClassOf(['sales'], classes)).toEqual({});
  });

  it('takes the most generous value of each field: 0 (no limit) over any number, the largest weight', () => {
    expect(quotaClassOf(['interns', 'reviewers'], classes)).toEqual({ tokensPerDay: 500_000, weight: 1, concurrentTurns: 2 });
    expect(quotaClassOf(['reviewers', 'platform', 'interns'], classes)).toEqual({ tokensPerDay: 0, weight: 4, concurrentTurns: 2 });
  });
});
