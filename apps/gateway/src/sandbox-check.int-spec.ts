import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SandboxHarness, startSandboxHarness } from '../../../test/support/app-harnesses';
import { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from './test/gateway-under-test';
import { ScriptedModelModule } from './test/scripted-workers';
import { sessionApi } from './test/session-api';

/**
 * `POST /v1/sandbox/check` on the real gateway (real Redis and NATS): first with no sandbox
 * worker on NATS, then with a real one on the real Docker engine, then with one whose snippet
 * image is not on the engine.
 */
let gateway: GatewayUnderTest;
let client: ReturnType<typeof sessionApi>;
let key: string;
let sandbox: SandboxHarness | undefined;

beforeAll(async () => {
  gateway = await startGatewayUnderTest(ScriptedModelModule);
  client = sessionApi(gateway.base);
  const user = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: 'sandbox-check' });
  key = String((await client.api('POST', `/v1/admin/users/${String(user.json.id)}/keys`, TEST_ADMIN_TOKEN)).json.key);
});

afterAll(async () => {
  await sandbox?.close();
  await gateway?.stop();
});

describe('POST /v1/sandbox/check', () => {
  it('wants a user key', async () => {
    const anonymous = await client.api('POST', '/v1/sandbox/check');
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error?.code).toBe('AUTH.UNAUTHORIZED');
  });

  it('answers 503 TRANSPORT.NO_RESPONDERS naming the subject when no sandbox worker runs', async () => {
    const checked = await client.api('POST', '/v1/sandbox/check', key);
    expect(checked.status).toBe(503);
    expect(checked.json.error).toMatchObject({ code: 'TRANSPORT.NO_RESPONDERS', message: 'No worker is listening on weft.sandbox.v1.exec' });
  });

  it('runs `true` in a container of a real sandbox worker and says how long it took', async () => {
    sandbox = await startSandboxHarness(gateway.natsUrl, { SANDBOX_POOL_SIZE: '0' });
    const checked = await client.api('POST', '/v1/sandbox/check', key);
    expect(checked.status, checked.text).toBe(200);
    // The gateway's default network is `none` here: no package install to check.
    expect(checked.json).toEqual({
      ok: true,
      durationMs: expect.any(Number),
      packages: [
        { manager: 'npm', status: 'no-network', network: 'none', durationMs: 0 },
        { manager: 'pip', status: 'no-network', network: 'none', durationMs: 0 },
      ],
    });
    expect(checked.json.durationMs).toBeGreaterThan(0);
  });

  it("answers 503 SANDBOX.UNAVAILABLE with the engine's reason when the image is missing", async () => {
    await sandbox?.close();
    sandbox = await startSandboxHarness(gateway.natsUrl, { SANDBOX_POOL_SIZE: '0', SANDBOX_IMAGE: 'weft/no-such-image:latest' });
    const checked = await client.api('POST', '/v1/sandbox/check', key);
    expect(checked.status).toBe(503);
    expect(checked.json.error).toMatchObject({
      code: 'SANDBOX.UNAVAILABLE',
      message: 'Sandbox image weft/no-such-image:latest is not on the engine',
    });
  });
});
