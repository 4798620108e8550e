import { execFile, execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const script = resolve(__dirname, 'compose-gpus.mjs');
const root = resolve(__dirname, '../..');
const run = promisify(execFile);

interface Service {
  image?: string;
  profiles?: string[];
  environment?: Record<string, string>;
  deploy?: { resources: { reservations: { devices: { driver: string; device_ids?: string[]; count?: string; capabilities: string[] }[] } } };
}

async function override(...args: string[]): Promise<Record<string, Service>> {
  const { stdout } = await run(process.execPath, [script, ...args, '--json']);
  return (JSON.parse(stdout) as { services: Record<string, Service> }).services;
}

function hasDockerCompose(): boolean {
  try {
    execFileSync('docker-compose', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('compose-gpus', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-gpus-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('gives each of N workers its own GPU, worker id and the CUDA image', async () => {
    const services = await override('4');
    const workers = Object.keys(services).filter((name) => name.startsWith('inference-gpu'));
    expect(workers).toEqual(['inference-gpu0', 'inference-gpu1', 'inference-gpu2', 'inference-gpu3']);
    workers.forEach((name, i) => {
      const service = services[name];
      expect(service?.image).toBe('${WEFT_INFERENCE_CUDA_IMAGE:-weft/inference-cuda:latest}');
      expect(service?.environment).toMatchObject({ WORKER_ID: `gpu${i}`, CUDA_VISIBLE_DEVICES: '0', NATS_URL: 'nats://nats:4222' });
      expect(service?.deploy?.resources.reservations.devices).toEqual([{ driver: 'nvidia', device_ids: [String(i)], capabilities: ['gpu'] }]);
    });
  });

  it('moves the CPU worker behind a profile so it does not start next to the GPU workers', async () => {
    expect((await override('1')).inference).toEqual({ profiles: ['cpu-inference'] });
  });

  it('selects the GPU with CUDA_VISIBLE_DEVICES when every GPU is handed to every worker', async () => {
    const services = await override('2', '--isolation', 'env', '--first-gpu', '2');
    expect(services['inference-gpu3']?.environment).toMatchObject({ WORKER_ID: 'gpu3', CUDA_VISIBLE_DEVICES: '3', CUDA_DEVICE_ORDER: 'PCI_BUS_ID' });
    expect(services['inference-gpu3']?.deploy?.resources.reservations.devices).toEqual([{ driver: 'nvidia', count: 'all', capabilities: ['gpu'] }]);
  });

  it('refuses a GPU count that is not a positive integer', async () => {
    await expect(run(process.execPath, [script, '0'])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('GPU count') });
    await expect(run(process.execPath, [script])).rejects.toMatchObject({ code: 2 });
  });

  it.skipIf(!hasDockerCompose())('writes YAML that docker-compose merges with the base file', async () => {
    const file = join(dir, 'docker-compose.gpu.yml');
    await writeFile(file, (await run(process.execPath, [script, '3'])).stdout);
    const { stdout } = await run('docker-compose', ['-f', join(root, 'docker-compose.yml'), '-f', file, 'config', '--services'], {
      cwd: root,
      env: { ...process.env, WEFT_ADMIN_TOKEN: 'compose-config-check', WEFT_NATS_PASSWORD: 'check', WEFT_NATS_WORKER_PASSWORD: 'check' },
    });
    expect(stdout.split('\n')).toEqual(expect.arrayContaining(['inference-gpu0', 'inference-gpu1', 'inference-gpu2', 'gateway']));
  });
});
