import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gatewayConfigSchema, inferenceConfigSchema } from './apps';
import { loadConfig } from './load-config';

function secretFile(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'weft-secret-')), 'secret');
  writeFileSync(path, content);
  return path;
}

describe('settings read from <NAME>_FILE', () => {
  it('reads the admin token and the NATS password from their files, dropping the trailing newline', () => {
    const config = loadConfig(gatewayConfigSchema, {
      WEFT_ADMIN_TOKEN_FILE: secretFile('admin-token-from-a-file\n'),
      NATS_PASSWORD_FILE: secretFile('nats password'),
    });
    expect(config.WEFT_ADMIN_TOKEN).toBe('admin-token-from-a-file');
    expect(config.NATS_PASSWORD).toBe('nats password');
  });

  it('validates what the file holds like the setting itself', () => {
    expect(() => loadConfig(gatewayConfigSchema, { WEFT_ADMIN_TOKEN_FILE: secretFile('short') })).toThrow(/WEFT_ADMIN_TOKEN: must be at least 16/);
  });

  it('names a file it cannot read', () => {
    expect(() => loadConfig(inferenceConfigSchema, { NATS_PASSWORD_FILE: '/run/secrets/missing' })).toThrow(
      /NATS_PASSWORD_FILE: cannot read \/run\/secrets\/missing \(ENOENT\)/,
    );
  });

  it('refuses a setting given both ways', () => {
    expect(() =>
      loadConfig(gatewayConfigSchema, { WEFT_ADMIN_TOKEN: 'admin-token-0123456789', WEFT_ADMIN_TOKEN_FILE: secretFile('admin-token-from-a-file') }),
    ).toThrow(/set WEFT_ADMIN_TOKEN or WEFT_ADMIN_TOKEN_FILE, not both/);
  });
});
