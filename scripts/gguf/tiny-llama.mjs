// Describes a llama-architecture GGUF with seeded random weights and a real ChatML tokenizer.
import { buildVocab } from './bpe-vocab.mjs';
import { GgufWriter, Q4_0_BLOCK, Q4_0_BLOCK_BYTES, TensorType } from './gguf-writer.mjs';

export const TINY_DEFAULTS = Object.freeze({
  embedding: 64,
  feedForward: 128,
  layers: 2,
  heads: 4,
  kvHeads: 2,
  contextLength: 2048,
  merges: 150,
  seed: 42,
  tensorType: 'f32',
  fim: true,
  /** Pad the vocabulary to this many tokens (undefined: no padding). */
  vocabSize: undefined,
});

/** The shapes of a 7B model (Mistral 7B: grouped KV heads, 32000 tokens), for GPU benchmarks. */
export const SEVEN_B_SHAPE = Object.freeze({
  embedding: 4096,
  layers: 32,
  heads: 32,
  kvHeads: 8,
  feedForward: 14336,
  vocabSize: 32000,
  contextLength: 32768,
  merges: 400,
});

const MATRIX_TYPES = { f32: TensorType.F32, f16: TensorType.F16, q4_0: TensorType.Q4_0 };
/** llama.cpp's llama_ftype: ALL_F32, MOSTLY_F16, MOSTLY_Q4_0. */
const FILE_TYPES = { f32: 0, f16: 1, q4_0: 2 };

const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/** mulberry32: small, fast, and the same stream on every machine. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashName(name) {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}

const ones = (out) => out.fill(1);

/** Uniform noise with the given standard deviation, seeded per tensor so order does not matter. */
function noise(name, seed, std) {
  const next = prng(hashName(name) ^ seed);
  const scale = std * Math.sqrt(3) * 2;
  return (out) => {
    for (let i = 0; i < out.length; i++) out[i] = (next() - 0.5) * scale;
  };
}

/**
 * Q4_0 blocks of uniform random 4-bit values under one scale per tensor, with the standard
 * deviation asked for: the speed of a real model's weights, without quantising floats.
 */
function q4Noise(name, seed, std) {
  const next = prng(hashName(name) ^ seed);
  // The values are d * (q - 8) for q uniform in 0..15, whose standard deviation is d * 4.61.
  const scale = Buffer.from(new Float16Array([std / Math.sqrt(255 / 12)]).buffer);
  return (out) => {
    for (let at = 0; at < out.length; at += Q4_0_BLOCK_BYTES) {
      out[at] = scale[0];
      out[at + 1] = scale[1];
      for (let i = 2; i < Q4_0_BLOCK_BYTES; i += 4) {
        const r = (next() * 4294967296) >>> 0;
        out.writeUInt32LE(r, at + i);
      }
    }
  };
}

/**
 * Output rows of the special (and reserved) tokens are zero so that greedy decoding never picks
 * one: a generation then runs to `maxTokens`, which makes streaming tests deterministic in length.
 */
function outputWeights(type, seed, std, embedding, silenced) {
  const quantised = type === TensorType.Q4_0;
  const fill = quantised ? q4Noise('output.weight', seed, std) : noise('output.weight', seed, std);
  // Floats: `out` holds elements from `start`. Q4_0: bytes of whole blocks, scale 0 silences.
  const unit = quantised ? Q4_0_BLOCK_BYTES / Q4_0_BLOCK : 1;
  return (out, start) => {
    fill(out);
    for (const id of silenced) {
      const from = (id * embedding - start) * unit;
      const to = from + embedding * unit;
      if (to > 0 && from < out.length) out.fill(0, Math.max(0, from), Math.min(out.length, to));
    }
  };
}

export function describeTinyLlama(options = {}) {
  const o = { ...TINY_DEFAULTS, ...options };
  const vocab = buildVocab({ merges: o.merges, fim: o.fim, size: o.vocabSize });
  const headDim = o.embedding / o.heads;
  const kvDim = headDim * o.kvHeads;
  const matrixType = MATRIX_TYPES[o.tensorType];
  if (matrixType === undefined) throw new Error(`tensor type must be one of ${Object.keys(MATRIX_TYPES).join(', ')}, got ${o.tensorType}`);
  const std = 1 / Math.sqrt(o.embedding);
  const w = new GgufWriter()
    .string('general.architecture', 'llama')
    .string('general.name', 'weft-tiny-llama')
    .uint32('general.alignment', 32)
    .uint32('general.file_type', FILE_TYPES[o.tensorType])
    .uint32('llama.context_length', o.contextLength)
    .uint32('llama.embedding_length', o.embedding)
    .uint32('llama.block_count', o.layers)
    .uint32('llama.feed_forward_length', o.feedForward)
    .uint32('llama.attention.head_count', o.heads)
    .uint32('llama.attention.head_count_kv', o.kvHeads)
    .float32('llama.attention.layer_norm_rms_epsilon', 1e-5)
    .uint32('llama.rope.dimension_count', headDim)
    .float32('llama.rope.freq_base', 10000)
    .uint32('llama.vocab_size', vocab.tokens.length)
    .string('tokenizer.ggml.model', 'gpt2')
    .string('tokenizer.ggml.pre', 'gpt-2')
    .stringArray('tokenizer.ggml.tokens', vocab.tokens)
    .int32Array('tokenizer.ggml.token_type', vocab.types)
    .stringArray('tokenizer.ggml.merges', vocab.merges)
    .uint32('tokenizer.ggml.bos_token_id', vocab.special['<|endoftext|>'])
    .uint32('tokenizer.ggml.eos_token_id', vocab.special['<|im_end|>'])
    .uint32('tokenizer.ggml.padding_token_id', vocab.special['<|endoftext|>'])
    .bool('tokenizer.ggml.add_bos_token', false)
    .string('tokenizer.chat_template', CHATML_TEMPLATE);
  if (o.fim) {
    w.uint32('tokenizer.ggml.fim_pre_token_id', vocab.special['<|fim_prefix|>'])
      .uint32('tokenizer.ggml.fim_suf_token_id', vocab.special['<|fim_suffix|>'])
      .uint32('tokenizer.ggml.fim_mid_token_id', vocab.special['<|fim_middle|>']);
  }

  const n = vocab.tokens.length;
  const silenced = [...Object.values(vocab.special), ...vocab.reserved];
  const fill = matrixType === TensorType.Q4_0 ? q4Noise : noise;
  const matrix = (name, dims) => w.tensor(name, dims, matrixType, fill(name, o.seed, std));
  matrix('token_embd.weight', [o.embedding, n]);
  w.tensor('output_norm.weight', [o.embedding], TensorType.F32, ones);
  w.tensor('output.weight', [o.embedding, n], matrixType, outputWeights(matrixType, o.seed, std, o.embedding, silenced));
  for (let b = 0; b < o.layers; b++) {
    const p = `blk.${b}`;
    w.tensor(`${p}.attn_norm.weight`, [o.embedding], TensorType.F32, ones);
    matrix(`${p}.attn_q.weight`, [o.embedding, o.embedding]);
    matrix(`${p}.attn_k.weight`, [o.embedding, kvDim]);
    matrix(`${p}.attn_v.weight`, [o.embedding, kvDim]);
    matrix(`${p}.attn_output.weight`, [o.embedding, o.embedding]);
    w.tensor(`${p}.ffn_norm.weight`, [o.embedding], TensorType.F32, ones);
    matrix(`${p}.ffn_gate.weight`, [o.embedding, o.feedForward]);
    matrix(`${p}.ffn_up.weight`, [o.embedding, o.feedForward]);
    matrix(`${p}.ffn_down.weight`, [o.feedForward, o.embedding]);
  }
  return w;
}

/** Writes the model and returns its size in bytes. */
export function writeTinyLlama(path, options = {}) {
  return describeTinyLlama(options).write(path);
}
