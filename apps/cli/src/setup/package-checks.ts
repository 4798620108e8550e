import { assertUnreachable, type PackageInstallCheck } from '@weft/contracts';
import type { CheckResult } from './setup-report';

/** Where distributions keep the CA bundle the host trusts, the most common first. */
export const HOST_CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'] as const;

const REGISTRY: Readonly<Record<PackageInstallCheck['manager'], string>> = { npm: 'the npm registry', pip: 'PyPI' };

/**
 * One line per package manager the gateway checked. The hints name the settings of the stack's
 * `.env`, which compose passes on (`WEFT_SANDBOX_CA_CERTS` becomes the sandbox's SANDBOX_CA_CERTS).
 * `hostCaBundle`: the bundle found on this machine, offered as the fix for a re-signing proxy.
 */
export function packageCheckResults(checks: readonly PackageInstallCheck[], hostCaBundle: string | undefined): { results: CheckResult[]; details: string[] } {
  const results: CheckResult[] = [];
  const details: string[] = [];
  for (const check of checks) {
    const result = packageCheckResult(check, hostCaBundle);
    results.push(result);
    if (result.status === 'fail' && check.output) details.push(...check.output.split('\n').map((line) => `${check.manager}: ${line}`));
  }
  return { results, details };
}

function packageCheckResult(check: PackageInstallCheck, hostCaBundle: string | undefined): CheckResult {
  const { manager } = check;
  const through = check.network === 'proxy' ? "through the sandbox's proxy" : 'from the sandbox';
  switch (check.status) {
    case 'ok':
      return { check: 'packages', status: 'pass', text: `${manager} reaches ${REGISTRY[manager]} ${through} (${check.durationMs} ms)` };
    case 'untrusted-certificate':
      return {
        check: 'packages',
        status: 'fail',
        text: `${manager} cannot install ${through}: the certificate chain is not trusted (a proxy on the way re-signs HTTPS)`,
        hint: `give the sandbox the CA bundle this machine trusts: WEFT_SANDBOX_CA_CERTS=${hostCaBundle ?? '<your CA bundle, PEM>'} in the stack's .env, then \`docker compose up -d sandbox\``,
      };
    case 'unreachable':
      return {
        check: 'packages',
        status: 'fail',
        text: `${manager} cannot install ${through}: ${REGISTRY[manager]} did not answer`,
        hint:
          check.network === 'proxy'
            ? `the proxy cannot reach ${REGISTRY[manager]}: read \`docker compose logs proxy\`, check the registry's host is in WEFT_PROXY_ALLOWED_HOSTS and that this machine reaches it (its own proxy, firewall, DNS)`
            : `the sandbox cannot reach ${REGISTRY[manager]}: check this machine's network (its own proxy, firewall, DNS)`,
      };
    case 'no-network':
      return { check: 'packages', status: 'skip', text: `${manager} installs not checked: new sessions get no network (WEFT_SANDBOX_DEFAULT_NETWORK=none)` };
    case 'absent':
      return { check: 'packages', status: 'skip', text: `${manager} installs not checked: the sandbox image has no ${manager}` };
    default:
      return assertUnreachable(check.status);
  }
}
