import { describe, expect, it } from 'vitest';
import { youngGenerationMiB } from './young-generation';

describe('youngGenerationMiB', () => {
  it("reads the size from node's command line", () => {
    expect(youngGenerationMiB(['--max-semi-space-size=32'], '')).toBe(32);
  });

  it('reads it from NODE_OPTIONS, in either spelling', () => {
    expect(youngGenerationMiB([], '--use-openssl-ca  --max_semi_space_size=64')).toBe(64);
  });

  it('takes the last one given, as node does', () => {
    expect(youngGenerationMiB(['--max-semi-space-size=16', '--max-semi-space-size=32'], '')).toBe(32);
  });

  it("is undefined for Node's default", () => {
    expect(youngGenerationMiB(['--enable-source-maps'], '')).toBeUndefined();
    expect(youngGenerationMiB([], '')).toBeUndefined();
  });
});
