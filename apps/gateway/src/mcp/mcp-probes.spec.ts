import { describe, expect, it } from 'vitest';
import { McpProbes, withinOrElse } from './mcp-probes';

type Result = { failed: boolean; n: number };

describe('McpProbes', () => {
  it('shares a probe under way, remembers a failure for a while, and probes again after it', async () => {
    let now = 0;
    const probes = new McpProbes<Result>(30_000, () => now);
    let starts = 0;
    let finish!: (r: Result) => void;
    const start = () => {
      starts++;
      return new Promise<Result>((resolve) => (finish = resolve));
    };
    const first = probes.probe('k', start);
    const second = probes.probe('k', start);
    expect(starts).toBe(1);
    finish({ failed: true, n: 1 });
    expect(await first).toEqual({ failed: true, n: 1 });
    expect(await second).toEqual({ failed: true, n: 1 });

    now = 29_999;
    expect(await probes.probe('k', start)).toEqual({ failed: true, n: 1 });
    expect(starts).toBe(1);
    now = 30_000;
    const again = probes.probe('k', start);
    expect(starts).toBe(2);
    finish({ failed: false, n: 2 });
    expect(await again).toEqual({ failed: false, n: 2 });
    // A success is not remembered: the next asker probes (the server may have gone since).
    void probes.probe('k', start);
    expect(starts).toBe(3);
  });

  it('answers with the fallback when a probe takes longer than the wait, which goes on', async () => {
    let finish!: (value: string) => void;
    const slow = new Promise<string>((resolve) => (finish = resolve));
    expect(await withinOrElse(slow, 5, 'starting')).toBe('starting');
    finish('ready');
    expect(await withinOrElse(slow, 5, 'starting')).toBe('ready');
  });
});
