import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
/** The image the compose file runs gateway, inference, tools and sandbox from (`npm run images`). */
const APP_IMAGE = process.env.WEFT_APP_IMAGE ?? 'weft/app:latest';

/** Runs a shell line in a throwaway container of the app image; returns its stdout. */
async function inImage(script: string): Promise<string> {
  const { stdout } = await run('docker', ['run', '--rm', '--entrypoint', 'sh', APP_IMAGE, '-c', script], { maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

const lines = (text: string): string[] => text.split('\n').filter((line) => line.length > 0);

// Test code left in the build (scripts/build/swc-build.sh decides what is built) ships in the image,
// where it is dead weight at best, and at worst imports a test runner the image does not have.
describe('the app image holds no test code', () => {
  it('has no file or folder named like a fake anywhere', async () => {
    // Permission errors (folders the image's user may not read) go to stderr; only names count.
    const found = await inImage("find / -path /proc -prune -o -name '*fake*' -print 2>/dev/null; true");
    expect(lines(found)).toEqual([]);
  });

  it('has no specs, test helper folders or test builds in the built apps and libs', async () => {
    const found = await inImage(
      "find /app -path /app/node_modules -prune -o \\( -name '*.spec.js' -o -name '*.int-spec.js' -o -name '*.e2e-spec.js'" +
        " -o -type d \\( -name test -o -name testing -o -name 'test-*' \\) \\) -print",
    );
    expect(lines(found)).toEqual([]);
  });

  it('has no built file that loads a test library, and no test library installed', async () => {
    const testLibraries = ['vitest', 'testcontainers', 'fast-check', '@vitest', 'playwright-core'];
    const loads = testLibraries.map((name) => `require\\("${name}[/"]`).join('|');
    const found = await inImage(
      `grep -rlE '${loads}' /app --include='*.js' --exclude-dir=node_modules; ` +
        testLibraries.map((name) => `[ -e /app/node_modules/${name} ] && echo /app/node_modules/${name}`).join('; ') +
        '; true',
    );
    expect(lines(found)).toEqual([]);
  });
});
