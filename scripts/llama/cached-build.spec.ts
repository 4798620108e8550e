import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = __dirname;
const root = resolve(here, '../..');
const run = promisify(execFile);
const nlc = join(root, 'node_modules/node-llama-cpp');
// A Docker socket that does not exist: any attempt to build fails at once, and says so.
// Each case runs node and bash a few times: slow on a loaded 2-core machine.
const SLOW = { timeout: 60_000 };
const NO_DOCKER = { DOCKER_HOST: 'unix:///nonexistent/docker.sock' };

// The caller's own WEFT_LLAMA_* settings (CI exports WEFT_LLAMA_BUILD=prebuilt) must not
// decide a case: each starts from the defaults and sets what it tests.
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WEFT_LLAMA_')));

async function sh(script: string, args: string[], env: Record<string, string> = {}) {
  return run('bash', [join(here, script), ...args], { env: { ...baseEnv, ...env } });
}

describe('build-key.sh', SLOW, () => {
  it('names the node-llama-cpp version, its llama.cpp release, the recipe and the CPU flags', async () => {
    const version = (JSON.parse(readFileSync(join(nlc, 'package.json'), 'utf8')) as { version: string }).version;
    const release = (JSON.parse(readFileSync(join(nlc, 'llama/llama.cpp.info.json'), 'utf8')) as { tag: string }).tag;
    const { stdout } = await sh('build-key.sh', [nlc]);
    expect(stdout.trim()).toMatch(new RegExp(`^${version.replace(/\./g, '\\.')}-${release}-r[0-9a-f]{8}-cpu[0-9a-f]{8}$`));
    expect((await sh('build-key.sh', [nlc])).stdout).toBe(stdout);
  });

  it('changes with node-llama-cpp and keeps the CPU part on the same host', async () => {
    const other = await mkdtemp(join(tmpdir(), 'weft-key-'));
    try {
      await mkdir(join(other, 'llama'));
      await writeFile(join(other, 'package.json'), '{"version":"9.9.9"}');
      await writeFile(join(other, 'llama/llama.cpp.info.json'), '{"tag":"b9999"}');
      const [mine, theirs] = [(await sh('build-key.sh', [nlc])).stdout.trim(), (await sh('build-key.sh', [other])).stdout.trim()];
      expect(theirs).toMatch(/^9\.9\.9-b9999-/);
      expect(theirs.split('-').at(-1)).toBe(mine.split('-').at(-1));
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });
});

describe('cached-build.sh', SLOW, () => {
  let cache: string;
  let key: string;

  beforeEach(async () => {
    cache = await mkdtemp(join(tmpdir(), 'weft-llama-cache-'));
    key = (await sh('build-key.sh', [nlc])).stdout.trim();
  });
  afterEach(async () => {
    await rm(cache, { recursive: true, force: true });
  });

  async function cachedRelease(): Promise<string> {
    const release = join(cache, key, 'Release');
    await mkdir(release, { recursive: true });
    await writeFile(join(release, 'llama-addon.node'), '');
    return release;
  }

  it('answers with the cached build for this key without building (no Docker needed)', async () => {
    const release = await cachedRelease();
    const { stdout, stderr } = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'source', ...NO_DOCKER });
    expect(stdout.trim()).toBe(release);
    expect(stderr).toContain('found the build for this CPU cached in');
  });

  it('serves the build by default, whatever an earlier timing cached', async () => {
    const release = await cachedRelease();
    await writeFile(join(cache, key, 'choice'), 'prebuilt\n');
    const { stdout, stderr } = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, ...NO_DOCKER });
    expect(stdout.trim()).toBe(release);
    expect(stderr).toContain('the build for this CPU serves');
    expect(stderr).not.toContain('timing');
  });

  it('with auto, keeps the verdict of the timing: the faster binary serves, without timing again', async () => {
    const release = await cachedRelease();
    await writeFile(join(cache, key, 'choice.log'), 'round 1 ...\npick: prebuilt (local/prebuilt 0.84x, geometric mean of the medians)\n');
    await writeFile(join(cache, key, 'choice'), 'prebuilt\n');
    const slower = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'auto', ...NO_DOCKER });
    expect(slower.stdout).toBe('');
    expect(slower.stderr).toContain("prebuilt decodes faster on this CPU");
    expect(slower.stderr).toContain('0.84x');
    await writeFile(join(cache, key, 'choice'), 'local\n');
    const faster = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'auto', ...NO_DOCKER });
    expect(faster.stdout.trim()).toBe(release);
  });

  it('with auto, keeps the prebuilt when the timing overruns, says so, and does not time again', async () => {
    await cachedRelease();
    const env = { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'auto', WEFT_LLAMA_PICK_TIMEOUT: '1', ...NO_DOCKER };
    const first = await sh('cached-build.sh', [], env);
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('could not be timed against the prebuilt');
    expect(await readFile(join(cache, key, 'choice'), 'utf8')).toBe('prebuilt\n');
    const second = await sh('cached-build.sh', [], env);
    expect(second.stderr).not.toContain('timing the build');
    expect(second.stderr).toContain('took over 1s');
    // timeout's 30 s grace (-k) may run out when the signal comes between two children.
  }, 120_000);

  it('builds nothing for WEFT_LLAMA_BUILD=prebuilt and refuses an unknown mode, naming it', async () => {
    await cachedRelease();
    const prebuilt = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'prebuilt' });
    expect(prebuilt.stdout).toBe('');
    await expect(sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_BUILD: 'fast' })).rejects.toThrow("WEFT_LLAMA_BUILD must be auto, source or prebuilt, got 'fast'");
  });

  it('falls back to the prebuilt loudly when it cannot build, and answers nothing', async () => {
    const { stdout, stderr } = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, ...NO_DOCKER });
    expect(stdout).toBe('');
    expect(stderr).toContain('NO BUILD FOR THIS CPU');
    expect(stderr).toContain("PREBUILT binary");
    expect(stderr).toContain('Docker is not running');
  });

  it('does not retry a build that failed for this key until asked to', async () => {
    await writeFile(join(cache, `${key}.failed`), 'error: something broke\n');
    const first = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, ...NO_DOCKER });
    expect(first.stdout).toBe('');
    expect(first.stderr).toContain('an earlier build for this CPU failed');
    expect(first.stderr).toContain(`${key}.failed`);
    // WEFT_LLAMA_REBUILD=1 tries again (here it then finds no Docker).
    const again = await sh('cached-build.sh', [], { WEFT_LLAMA_CACHE: cache, WEFT_LLAMA_REBUILD: '1', ...NO_DOCKER });
    expect(again.stderr).toContain('Docker is not running');
  });
});

describe('install-addon.sh', SLOW, () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-install-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("installs a Release folder as node-llama-cpp's last build", async () => {
    const release = join(dir, 'Release');
    const target = join(dir, 'node-llama-cpp');
    await mkdir(release);
    await writeFile(join(release, 'llama-addon.node'), 'addon');
    await mkdir(join(target, 'llama'), { recursive: true });
    await cp(join(nlc, 'package.json'), join(target, 'package.json'));
    await sh('install-addon.sh', [release, target]);
    expect(JSON.parse(await readFile(join(target, 'llama/lastBuild.json'), 'utf8'))).toEqual({ folderName: 'linux-x64-weft-cpu' });
    expect(existsSync(join(target, 'llama/localBuilds/linux-x64-weft-cpu/buildDone.status'))).toBe(true);
    expect(await readFile(join(target, 'llama/localBuilds/linux-x64-weft-cpu/Release/llama-addon.node'), 'utf8')).toBe('addon');
  });

  it('refuses a folder without the addon, naming it', async () => {
    await expect(sh('install-addon.sh', [dir, nlc])).rejects.toThrow(`${dir} has no llama-addon.node`);
  });
});
