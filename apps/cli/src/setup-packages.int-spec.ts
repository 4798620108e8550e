import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { loadConfig, toolsConfigSchema } from '@weft/config';
import { createLogger } from '@weft/logging';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestImages } from '../../../test/support/containers';
import { type GatewayUnderTest, type SandboxHarness, ScriptedModelModule, TEST_ADMIN_TOKEN, sessionApi, startGatewayUnderTest, startSandboxHarness, startToolsWorker } from '../../../test/support/app-harnesses';
import { buildCli, weft } from './testing/built-cli';

/**
 * `weft setup`'s package check through the real allow-listing proxy (squid), from real sandbox
 * runs on the real Docker engine, with the gateway's default network `proxy` as compose sets it.
 * This machine's HTTPS is re-signed on the way out (docs: DESIGN, "The machines this is built
 * and tested on"): a sandbox that is not given the host's CA bundle meets it as npm and pip do.
 */
let gateway: GatewayUnderTest;
let tools: INestMicroservice;
let sandbox: SandboxHarness | undefined;
let proxy: string | undefined;
let home: string;
let key: string;

const REGISTRY_HOSTS = ['registry.npmjs.org', 'pypi.org', 'files.pythonhosted.org'];

/**
 * The proxy as compose runs it. `unreachable`: squid finds the registries at its own loopback,
 * where nothing listens, so it answers each tunnel with an error at once, as a proxy whose
 * registry is down or blocked does.
 */
function startProxy(unreachable: boolean): string {
  const args = ['run', '-d', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '-e', `PROXY_ALLOWED_HOSTS=${REGISTRY_HOSTS.join(',')}`];
  if (unreachable) args.push(...REGISTRY_HOSTS.flatMap((host) => ['--add-host', `${host}:127.0.0.1`]));
  return execFileSync('docker', [...args, TestImages.proxy], { encoding: 'utf8' }).trim();
}

async function stopSandbox(): Promise<void> {
  await sandbox?.close();
  sandbox = undefined;
  if (!proxy) return;
  execFileSync('docker', ['rm', '-f', proxy], { stdio: 'ignore' });
  for (const network of execFileSync('docker', ['network', 'ls', '-q', '--filter', `name=weft-proxy-${proxy.slice(0, 12)}`], { encoding: 'utf8' }).split('\n').filter(Boolean)) {
    execFileSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
  }
  proxy = undefined;
}

/** A sandbox worker beside a fresh proxy, sharing the tools worker's workspaces. */
async function startSandbox(options: { unreachable?: boolean; env?: Record<string, string> }): Promise<void> {
  proxy = startProxy(options.unreachable === true);
  sandbox = await startSandboxHarness(gateway.natsUrl, { SANDBOX_POOL_SIZE: '0', SANDBOX_PROXY_CONTAINER: proxy, ...options.env });
}

let workspaces: string;

beforeAll(async () => {
  [gateway] = await Promise.all([startGatewayUnderTest(ScriptedModelModule, { SANDBOX_DEFAULT_NETWORK: 'proxy' }), buildCli()]);
  workspaces = await mkdtemp(join(tmpdir(), 'weft-setup-packages-ws-'));
  home = await mkdtemp(join(tmpdir(), 'weft-setup-packages-'));
  const client = sessionApi(gateway.base);
  const user = await client.api('POST', '/v1/admin/users', TEST_ADMIN_TOKEN, { name: 'packages' });
  key = String((await client.api('POST', `/v1/admin/users/${String(user.json.id)}/keys`, TEST_ADMIN_TOKEN)).json.key);
});

afterEach(stopSandbox);

afterAll(async () => {
  await stopSandbox();
  await tools?.close();
  await gateway?.stop();
  await rm(workspaces, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const setup = () => weft(['setup', '--yes', '--url', gateway.base, '--key', key], { XDG_CONFIG_HOME: join(home, 'config'), HOME: home });

describe('weft setup checks package installs through the sandbox proxy', () => {
  beforeAll(async () => {
    // The sandbox mounts the workspaces the tools worker makes: one folder for both.
    tools = await startToolsWorker(loadConfig(toolsConfigSchema, { NATS_URL: gateway.natsUrl, WORKSPACES_DIR: workspaces, LOG_LEVEL: 'silent' }), createLogger('tools', 'silent'));
  });

  it('reports a proxy that cannot reach the registry, with where to look', async () => {
    await startSandbox({ unreachable: true, env: { WORKSPACES_DIR: workspaces } });
    const result = await setup();

    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^✓ the sandbox runs commands/m);
    expect(result.stdout).toContain("✗ npm cannot install through the sandbox's proxy: the npm registry did not answer");
    expect(result.stdout).toContain("✗ pip cannot install through the sandbox's proxy: PyPI did not answer");
    expect(result.stdout).toContain('  packages: the proxy cannot reach the npm registry: read `docker compose logs proxy`, check the registry\'s host is in WEFT_PROXY_ALLOWED_HOSTS');
    // The manager's own last lines, where its reason is.
    expect(result.stdout).toMatch(/^ {4}npm: npm error/m);
  });

  it('detects a re-signing proxy and offers the host CA bundle as WEFT_SANDBOX_CA_CERTS, then passes once the sandbox has it', async () => {
    await startSandbox({ env: { WORKSPACES_DIR: workspaces, SANDBOX_CA_CERTS: '' } });
    const untrusted = await setup();

    expect(untrusted.code, untrusted.stdout + untrusted.stderr).toBe(1);
    expect(untrusted.stdout).toContain("✗ npm cannot install through the sandbox's proxy: the certificate chain is not trusted (a proxy on the way re-signs HTTPS)");
    expect(untrusted.stdout).toMatch(/^ {4}npm: .*(SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)/m);
    expect(untrusted.stdout).toContain("  packages: give the sandbox the CA bundle this machine trusts: WEFT_SANDBOX_CA_CERTS=/etc/ssl/certs/ca-certificates.crt in the stack's .env, then `docker compose up -d sandbox`");

    await stopSandbox();
    await startSandbox({ env: { WORKSPACES_DIR: workspaces } });
    const trusted = await setup();
    expect(trusted.stdout).toMatch(/^✓ npm reaches the npm registry through the sandbox's proxy \(\d+ ms\)$/m);
    expect(trusted.stdout).not.toContain('certificate chain is not trusted');
    // This machine's network lets the npm registry through and not PyPI: pip's line says which it met.
    expect(trusted.stdout).toMatch(/^(✓ pip reaches PyPI through the sandbox's proxy|✗ pip cannot install through the sandbox's proxy: PyPI did not answer)/m);
    // The check's workspace is gone again.
    expect(execFileSync('ls', [workspaces], { encoding: 'utf8' }).trim()).toBe('');
  });
});
