import { describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from './apps';
import { sandboxConfigSchema } from './sandbox';
import { loadConfig } from './load-config';

const gatewayEnv = { WEFT_ADMIN_TOKEN: 'admin-token-0123456789' };

describe('gateway sandbox settings', () => {
  it('refuses egress and sends runs past a minute to the long-run queue by default', () => {
    const config = loadConfig(gatewayConfigSchema, gatewayEnv);
    expect(config.SANDBOX_EGRESS_ALLOWED).toBe(false);
    expect(config.SANDBOX_LONG_RUN_THRESHOLD_MS).toBe(60_000);
    expect(config.SANDBOX_LONG_RUN_TIMEOUT_MS).toBe(600_000);
  });

  it.each([
    ['true', true],
    ['1', true],
    ['yes', true],
    ['false', false],
    ['0', false],
    ['no', false],
  ])('reads SANDBOX_EGRESS_ALLOWED=%s as %s', (value, expected) => {
    expect(loadConfig(gatewayConfigSchema, { ...gatewayEnv, SANDBOX_EGRESS_ALLOWED: value }).SANDBOX_EGRESS_ALLOWED).toBe(expected);
  });

  it('names SANDBOX_EGRESS_ALLOWED when its value is not a boolean', () => {
    expect(() => loadConfig(gatewayConfigSchema, { ...gatewayEnv, SANDBOX_EGRESS_ALLOWED: 'maybe' })).toThrow(
      /SANDBOX_EGRESS_ALLOWED: must be true or false/,
    );
  });

  it('caps the long-run timeout at the sandbox limit', () => {
    expect(() => loadConfig(gatewayConfigSchema, { ...gatewayEnv, SANDBOX_LONG_RUN_TIMEOUT_MS: '600001' })).toThrow(
      /SANDBOX_LONG_RUN_TIMEOUT_MS/,
    );
  });
});

describe('sandbox long-run and egress settings', () => {
  it('takes no long runs without REDIS_URL and names its egress network', () => {
    const config = loadConfig(sandboxConfigSchema, {});
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.REDIS_KEY_PREFIX).toBe('weft:');
    expect(config.SANDBOX_EGRESS_NETWORK).toBe('weft-sandbox-egress');
    expect(config.SANDBOX_LONG_RUN_CONCURRENCY).toBe(2);
  });

  it('rejects an egress network name the engine would refuse', () => {
    expect(() => loadConfig(sandboxConfigSchema, { SANDBOX_EGRESS_NETWORK: 'bad name' })).toThrow(/SANDBOX_EGRESS_NETWORK/);
  });
});
