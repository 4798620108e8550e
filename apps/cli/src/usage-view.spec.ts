import { describe, expect, it } from 'vitest';
import { colorsFor } from './render';
import { formatTable } from './table';
import { describeLimits, usageLines } from './usage-view';

const plain = colorsFor({ isTTY: false }, {});
const zero = { turns: 0, generations: 0, promptTokens: 0, cachedTokens: 0, evaluatedTokens: 0, completionTokens: 0, toolCalls: 0, sandboxRuns: 0, sandboxMs: 0 };

describe('usage and limits as text', () => {
  it('reads a limit of 0 as unlimited', () => {
    expect(describeLimits({ weight: 2, requestsPerMinute: 0, concurrentTurns: 4, tokensPerDay: 0, sandboxSecondsPerDay: 600 })).toBe(
      'requests/min unlimited · 4 concurrent turns · tokens/day unlimited · 600 sandbox s/day · weight 2',
    );
  });

  it('says there is no usage in the range instead of an empty table', () => {
    expect(usageLines({ from: '2026-11-01', to: '2026-11-30', totals: zero, rows: [] }, plain)).toEqual(['no usage from 2026-11-01 to 2026-11-30 (UTC days)']);
  });

  it('pads left-aligned cells on the right and right-aligned ones on the left, with no trailing spaces', () => {
    expect(formatTable([{ header: 'name' }, { header: 'n', align: 'right' }, { header: 'note' }], [['ada', '1200', ''], ['grace', '7', 'x']])).toEqual([
      'name      n  note',
      'ada    1200',
      'grace     7  x',
    ]);
  });
});
