import { describe, expect, it } from 'vitest';
import { packageCheckResults } from './package-checks';
import { summaryLines } from './setup-report';

describe('package check results', () => {
  it('offers the host CA bundle as WEFT_SANDBOX_CA_CERTS when a proxy re-signs HTTPS, once for npm and pip', () => {
    const { results, details } = packageCheckResults(
      [
        { manager: 'npm', status: 'untrusted-certificate', network: 'proxy', durationMs: 900, output: 'npm error code SELF_SIGNED_CERT_IN_CHAIN' },
        { manager: 'pip', status: 'untrusted-certificate', network: 'proxy', durationMs: 700, output: 'SSLError(CERTIFICATE_VERIFY_FAILED)' },
      ],
      '/etc/ssl/certs/ca-certificates.crt',
    );
    expect(results.map((result) => [result.status, result.text])).toEqual([
      ['fail', "npm cannot install through the sandbox's proxy: the certificate chain is not trusted (a proxy on the way re-signs HTTPS)"],
      ['fail', "pip cannot install through the sandbox's proxy: the certificate chain is not trusted (a proxy on the way re-signs HTTPS)"],
    ]);
    expect(details).toEqual(['npm: npm error code SELF_SIGNED_CERT_IN_CHAIN', 'pip: SSLError(CERTIFICATE_VERIFY_FAILED)']);
    const summary = summaryLines({ results });
    expect(summary).toEqual([
      '2 checks failed:',
      "  packages: give the sandbox the CA bundle this machine trusts: WEFT_SANDBOX_CA_CERTS=/etc/ssl/certs/ca-certificates.crt in the stack's .env, then `docker compose up -d sandbox`",
      'Fix the above and run `weft setup` again.',
    ]);
  });

  it('names the proxy and its allow list when the registry does not answer through it', () => {
    const [result] = packageCheckResults([{ manager: 'npm', status: 'unreachable', network: 'proxy', durationMs: 20_000, output: 'npm error 503' }], undefined).results;
    expect(result).toMatchObject({ status: 'fail', text: "npm cannot install through the sandbox's proxy: the npm registry did not answer" });
    expect(result?.hint).toContain('`docker compose logs proxy`');
    expect(result?.hint).toContain('WEFT_PROXY_ALLOWED_HOSTS');
  });

  it('passes a working registry and skips a manager the image lacks or a server without network', () => {
    const { results } = packageCheckResults(
      [
        { manager: 'npm', status: 'ok', network: 'proxy', durationMs: 812 },
        { manager: 'pip', status: 'absent', network: 'proxy', durationMs: 5 },
      ],
      undefined,
    );
    expect(results.map((result) => [result.status, result.text])).toEqual([
      ['pass', "npm reaches the npm registry through the sandbox's proxy (812 ms)"],
      ['skip', 'pip installs not checked: the sandbox image has no pip'],
    ]);
    expect(packageCheckResults([{ manager: 'npm', status: 'no-network', network: 'none', durationMs: 0 }], undefined).results[0]?.text).toBe(
      'npm installs not checked: new sessions get no network (WEFT_SANDBOX_DEFAULT_NETWORK=none)',
    );
  });
});
