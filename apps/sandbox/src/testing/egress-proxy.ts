import { execFileSync } from 'node:child_process';

export interface TestProxy {
  /** The proxy container's id (SANDBOX_PROXY_CONTAINER). */
  id: string;
  /** Removes the proxy and the per-user networks made for it. */
  stop(): void;
}

/**
 * The allow-listing proxy as compose runs it: read-only, no capabilities, `allowedHosts` only.
 * `image` is TestImages.proxy (test/support, which only specs may import).
 */
export function startTestProxy(image: string, allowedHosts = 'registry.npmjs.org', extraArgs: string[] = []): TestProxy {
  const id = execFileSync(
    'docker',
    ['run', '-d', '--read-only', '--tmpfs', '/tmp', '--cap-drop', 'ALL', '--label', 'weft.test.proxy=1', ...extraArgs,
      '-e', `PROXY_ALLOWED_HOSTS=${allowedHosts}`, image],
    { encoding: 'utf8' },
  ).trim();
  return {
    id,
    stop() {
      execFileSync('docker', ['rm', '-f', id], { stdio: 'ignore' });
      const networks = execFileSync('docker', ['network', 'ls', '-q', '--filter', `name=weft-proxy-${id.slice(0, 12)}`], { encoding: 'utf8' });
      for (const network of networks.split('\n').filter(Boolean)) execFileSync('docker', ['network', 'rm', network], { stdio: 'ignore' });
    },
  };
}
