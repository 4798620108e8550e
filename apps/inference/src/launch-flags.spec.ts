import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../../..');

/**
 * Every way Weft starts an inference worker. V8's young generation is sized only at start, by a
 * flag on node's command line, so each launch must pass it: a worker started without it collects
 * its per-token garbage with a young generation of a few MiB, and the promotions and marking take
 * CPU from llama.cpp's threads (docs/inference.md, "Node's young generation").
 */
const launches = [
  'docker-compose.yml',
  'docker-compose.worker.yml',
  'deploy/k8s/base/inference.yaml',
  'deploy/swarm/stack.yml',
  'docker/inference-cuda.Dockerfile',
  // The GPU override (npm run compose:gpus) writes a service per GPU with this command.
  'scripts/gpu/compose-gpus.mjs',
];
const withFlag = /\[["']node["'], ["']--max-semi-space-size=32["'], ["']apps\/inference\/dist\/main\.js["']\]/;

describe("the inference worker's launch commands", () => {
  it.each(launches)('%s starts the worker with a 32 MiB young generation', (file) => {
    const text = readFileSync(resolve(root, file), 'utf8');
    const starts = text.split('\n').filter((line) => line.includes('apps/inference/dist/main.js'));
    expect(starts.length).toBeGreaterThan(0);
    for (const line of starts) expect(line).toMatch(withFlag);
  });

  it('npm run bench:inference, which hosts the worker in its own process, runs node with it', () => {
    const scripts = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')).scripts as Record<string, string>;
    expect(scripts['bench:inference']).toContain('node --max-semi-space-size=32 ');
  });
});
