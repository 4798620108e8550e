#!/usr/bin/env node
// Writes the tiny random-weight llama GGUF that tests and the compose stack load.
// Usage: node scripts/gguf/make-test-model.mjs [output.gguf] [--embedding N] [--layers N]
//        [--heads N] [--kv-heads N] [--feed-forward N] [--context N] [--merges N] [--seed N] [--f16]
//        [--no-fim] (leave out the fill-in-the-middle tokens)
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TINY_DEFAULTS, writeTinyLlama } from './tiny-llama.mjs';

const DEFAULT_OUTPUT = '.weft-test/models/tiny.gguf';

const numeric = {
  embedding: 'embedding',
  layers: 'layers',
  heads: 'heads',
  'kv-heads': 'kvHeads',
  'feed-forward': 'feedForward',
  context: 'contextLength',
  merges: 'merges',
  seed: 'seed',
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...Object.fromEntries(Object.keys(numeric).map((k) => [k, { type: 'string' }])),
    f16: { type: 'boolean', default: false },
    'no-fim': { type: 'boolean', default: false },
  },
});

const options = { tensorType: values.f16 ? 'f16' : 'f32', fim: !values['no-fim'] };
for (const [flag, key] of Object.entries(numeric)) {
  if (values[flag] === undefined) continue;
  const n = Number(values[flag]);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`--${flag} must be a positive integer (default ${TINY_DEFAULTS[key]})`);
    process.exit(2);
  }
  options[key] = n;
}
if (options.embedding !== undefined && options.embedding % (options.heads ?? TINY_DEFAULTS.heads) !== 0) {
  console.error('--embedding must be a multiple of --heads');
  process.exit(2);
}

const output = resolve(positionals[0] ?? DEFAULT_OUTPUT);
const bytes = writeTinyLlama(output, options);
console.log(`wrote ${output} (${(bytes / 1024).toFixed(0)} KiB)`);
