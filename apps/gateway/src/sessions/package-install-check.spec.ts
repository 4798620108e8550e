import { describe, expect, it } from 'vitest';
import { classifyProbe, outputTail } from './package-install-check';

const run = (exitCode: number | null, stdout: string, stderr = '') => ({ exitCode, stdout, stderr });

describe('the package install probe', () => {
  it("tells a re-signing proxy by npm's and pip's certificate errors", () => {
    expect(classifyProbe(run(1, 'npm error code SELF_SIGNED_CERT_IN_CHAIN\nnpm error errno SELF_SIGNED_CERT_IN_CHAIN'))).toBe('untrusted-certificate');
    expect(classifyProbe(run(1, 'npm error code UNABLE_TO_GET_ISSUER_CERT_LOCALLY'))).toBe('untrusted-certificate');
    expect(classifyProbe(run(1, '', "SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: self-signed certificate in certificate chain'))"))).toBe('untrusted-certificate');
  });

  it('calls any other failure unreachable, and exit 127 a manager the image lacks', () => {
    expect(classifyProbe(run(1, 'npm error code E503\nnpm error 503 Service Unavailable - GET https://registry.npmjs.org/is-number'))).toBe('unreachable');
    expect(classifyProbe(run(127, ''))).toBe('absent');
    expect(classifyProbe(run(0, '7.0.0'))).toBe('ok');
  });

  it('keeps the last lines of the output, where the reason is', () => {
    const text = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    expect(outputTail(`${text}\n\n`)).toBe('line 14\nline 15\nline 16\nline 17\nline 18\nline 19');
  });
});
