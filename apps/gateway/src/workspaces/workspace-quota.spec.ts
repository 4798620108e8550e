import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { quotaLeft } from './workspace-quota';

describe('quotaLeft', () => {
  it('returns what an upload may still add', () => {
    expect(quotaLeft(1000, 250)).toBe(750);
  });

  it('refuses with a 413 code once the quota is used up, saying how much is used', () => {
    expect(() => quotaLeft(1000, 1000)).toThrow(expect.objectContaining({ code: ErrorCode.PayloadTooLarge }));
    expect(() => quotaLeft(1000, 1200)).toThrow(/hold 1200 bytes of 1000/);
  });
});
