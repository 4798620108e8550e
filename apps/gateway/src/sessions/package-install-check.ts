import { Inject, Injectable } from '@nestjs/common';
import { Routes, type ExecResult, type PackageInstallCheck, type SandboxNetwork } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import { newId } from '../common/ids';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';

/**
 * Each manager fetches one small package's metadata from its registry, with one try and a short
 * timeout: npm otherwise retried a re-signed certificate for 72 s before saying why.
 * Exit 127: the image has no such manager.
 */
const PROBES: Readonly<Record<PackageInstallCheck['manager'], string>> = {
  npm: 'command -v npm >/dev/null || exit 127; cd /tmp && npm view is-number version --fetch-retries=0 --fetch-timeout=20000 --no-update-notifier 2>&1',
  pip: 'python3 -m pip --version >/dev/null 2>&1 || exit 127; cd /tmp && python3 -m pip download --no-deps --no-cache-dir --retries 0 --timeout 20 --disable-pip-version-check -d /tmp/weft-check six 2>&1',
};
const PROBE_TIMEOUT_MS = 45_000;
const PROBE_REPLY_TIMEOUT_MS = 60_000;
const OUTPUT_TAIL_LINES = 6;
const OUTPUT_MAX_CHARS = 800;

/** The words npm (Node's TLS codes) and pip (OpenSSL's) use when a certificate chain is not trusted. */
const UNTRUSTED_CERTIFICATE =
  /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|UNABLE_TO_VERIFY_LEAF_SIGNATURE|DEPTH_ZERO_SELF_SIGNED_CERT|CERTIFICATE_VERIFY_FAILED|self[- ]signed certificate in certificate chain|unable to get local issuer certificate/i;

/** What a probe's run says about the way to the registry. */
export function classifyProbe(result: Pick<ExecResult, 'exitCode' | 'stdout' | 'stderr'>): PackageInstallCheck['status'] {
  if (result.exitCode === 0) return 'ok';
  if (result.exitCode === 127) return 'absent';
  return UNTRUSTED_CERTIFICATE.test(`${result.stdout}\n${result.stderr}`) ? 'untrusted-certificate' : 'unreachable';
}

/** The last lines of a failed probe's output, where its reason is. */
export function outputTail(text: string): string {
  const lines = text.trim().split('\n').filter((line) => line.trim() !== '');
  return lines.slice(-OUTPUT_TAIL_LINES).join('\n').slice(-OUTPUT_MAX_CHARS);
}

/**
 * `weft setup`'s package check: an npm and a pip fetch (those of `SANDBOX_CHECK_PACKAGES`) from a
 * real sandbox run on the network new sessions get (`SANDBOX_DEFAULT_NETWORK`), in the user's own proxy network, from an empty
 * workspace made for it and removed after, with the session's container.
 */
@Injectable()
export class PackageInstallCheckService {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'SANDBOX_DEFAULT_NETWORK' | 'SANDBOX_CHECK_PACKAGES'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async check(userId: string): Promise<PackageInstallCheck[]> {
    const network = this.config.SANDBOX_DEFAULT_NETWORK;
    const managers = this.config.SANDBOX_CHECK_PACKAGES;
    if (managers.length === 0) return [];
    if (network === 'none') return managers.map((manager) => ({ manager, status: 'no-network', network, durationMs: 0 }));
    const workspaceId = newId('ws');
    const sessionId = newId('ses');
    await this.rpc.request(Routes.toolsCreateWorkspace, { workspaceId }, { timeoutMs: 10_000 });
    try {
      const checks: PackageInstallCheck[] = [];
      // One after the other, in one container: the second reuses the first's.
      for (const manager of managers) checks.push(await this.probe(manager, network, workspaceId, { sessionId, ownerId: userId }));
      return checks;
    } finally {
      await this.cleanUp(workspaceId, sessionId);
    }
  }

  private async probe(manager: PackageInstallCheck['manager'], network: SandboxNetwork, workspaceId: string, session: { sessionId: string; ownerId: string }): Promise<PackageInstallCheck> {
    const result = await this.rpc.request(
      Routes.sandboxExec,
      { mode: 'command', workspaceId, command: PROBES[manager], writable: false, network, session, timeoutMs: PROBE_TIMEOUT_MS },
      { timeoutMs: PROBE_REPLY_TIMEOUT_MS },
    );
    const status = result.timedOut ? 'unreachable' : classifyProbe(result);
    const durationMs = Math.round(result.durationMs);
    if (status === 'ok' || status === 'absent') return { manager, status, network, durationMs };
    return { manager, status, network, durationMs, output: outputTail(`${result.stdout}\n${result.stderr}`) || (result.timedOut ? `no answer within ${PROBE_TIMEOUT_MS} ms` : `exit ${String(result.exitCode)}`) };
  }

  /** The container first, then the workspace it mounted; a failure to remove either is logged, not the user's. */
  private async cleanUp(workspaceId: string, sessionId: string): Promise<void> {
    try {
      await this.rpc.request(Routes.sandboxReleaseSession, { sessionId }, { timeoutMs: 30_000 });
      await this.rpc.request(Routes.toolsDeleteWorkspace, { workspaceId }, { timeoutMs: 10_000 });
    } catch (error) {
      this.logger.warn({ err: error, workspaceId, sessionId }, 'the sandbox check could not remove its container or workspace');
    }
  }
}
