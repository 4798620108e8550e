#!/usr/bin/env node
// Writes the tiny random-weight llama GGUF that tests and the compose stack load.
// Usage: node scripts/gguf/make-test-model.mjs [output.gguf] [--embedding N] [--layers N]
//        [--heads N] [--kv-heads N] [--feed-forward N] [--context N] [--merges N] [--vocab N]
//        [--seed N] [--type f32|f16|q4_0] [--f16] (= --type f16)
//        [--no-fim] (leave out the fill-in-the-middle tokens)
//        [--shape 7b] (Mistral 7B's dimensions and 32000 tokens; the other flags override them)
// A 7B-shaped Q4_0 model for GPU benchmarks (about 4 GB, written in seconds):
//   node scripts/gguf/make-test-model.mjs bench-7b-q4_0.gguf --shape 7b --type q4_0
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SEVEN_B_SHAPE, TINY_DEFAULTS, writeTinyLlama } from './tiny-llama.mjs';

const DEFAULT_OUTPUT = '.weft-test/models/tiny.gguf';

const numeric = {
  embedding: 'embedding',
  layers: 'layers',
  heads: 'heads',
  'kv-heads': 'kvHeads',
  'feed-forward': 'feedForward',
  context: 'contextLength',
  merges: 'merges',
  vocab: 'vocabSize',
  seed: 'seed',
};
const SHAPES = { '7b': SEVEN_B_SHAPE };
const TYPES = ['f32', 'f16', 'q4_0'];

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ...Object.fromEntries(Object.keys(numeric).map((k) => [k, { type: 'string' }])),
    f16: { type: 'boolean', default: false },
    type: { type: 'string' },
    shape: { type: 'string' },
    'no-fim': { type: 'boolean', default: false },
  },
});

const type = values.type ?? (values.f16 ? 'f16' : 'f32');
if (!TYPES.includes(type)) {
  console.error(`--type must be one of ${TYPES.join(', ')}`);
  process.exit(2);
}
if (values.shape !== undefined && !SHAPES[values.shape]) {
  console.error(`--shape must be one of ${Object.keys(SHAPES).join(', ')}`);
  process.exit(2);
}
const options = { ...SHAPES[values.shape], tensorType: type, fim: !values['no-fim'] };
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
console.log(`wrote ${output} (${bytes >= 1 << 30 ? `${(bytes / (1 << 30)).toFixed(2)} GiB` : `${(bytes / 1024).toFixed(0)} KiB`})`);
