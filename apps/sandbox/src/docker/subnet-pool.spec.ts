import { describe, expect, it } from 'vitest';
import { SubnetPool } from './subnet-pool';

describe('SubnetPool', () => {
  it('cuts a range into networks of the prefix', () => {
    const pool = new SubnetPool('10.213.0.0/16', 27);
    expect(pool.size).toBe(2048);
    expect(pool.slot(0)).toBe('10.213.0.0/27');
    expect(pool.slot(9)).toBe('10.213.1.32/27');
    expect(pool.slot(2047)).toBe('10.213.255.224/27');
  });

  it('starts each key at a slot of its own and skips taken ones, wrapping round', () => {
    const pool = new SubnetPool('10.0.0.0/26', 28);
    const start = pool.startFor('usr_a');
    expect(pool.startFor('usr_a')).toBe(start);
    const order = [...pool.candidates('usr_a', () => [pool.slot(start)])];
    expect(order).toEqual([1, 2, 3].map((i) => pool.slot((start + i) % 4)));
  });

  it('yields nothing when every slot overlaps a taken subnet', () => {
    const pool = new SubnetPool('10.0.0.0/28', 28);
    expect([...pool.candidates('usr_a', () => ['10.0.0.0/16'])]).toEqual([]);
  });

  it('refuses what is not a range for the prefix', () => {
    expect(() => new SubnetPool('10.213.0.0/28', 27)).toThrow();
    expect(() => new SubnetPool('10.300.0.0/16', 27)).toThrow();
    expect(() => new SubnetPool('nonsense', 27)).toThrow();
  });

  it('knows its own subnets', () => {
    const pool = new SubnetPool('10.213.0.0/16', 27);
    expect(pool.contains('10.213.4.96/27')).toBe(true);
    expect(pool.contains('10.214.0.0/27')).toBe(false);
  });
});
