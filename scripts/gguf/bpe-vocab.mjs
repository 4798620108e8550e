// A GPT-2 style byte-level BPE vocabulary: the 256 byte tokens, merges learnt from a small
// built-in corpus, and the ChatML special tokens.

export const SpecialTokens = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
/** Fill-in-the-middle tokens as Qwen2.5-Coder names them; left out with `fim: false`. */
export const FimTokens = ['<|fim_prefix|>', '<|fim_suffix|>', '<|fim_middle|>'];

// llama.cpp token types.
const NORMAL = 1;
const CONTROL = 3;
const UNUSED = 5;

const CORPUS = `The quick brown fox jumps over the lazy dog. You are a helpful coding assistant.
List the files in the current directory, then read the file and write a summary of the code.
function main() { const result = await list_directory({ path: "." }); return result; }
The user asked for the tests to pass; run the command and report the output of the test suite.
import { readFile } from "node:fs/promises"; export class Service { constructor() {} }
There are three files in this workspace: README.md, package.json and src/index.ts.`;

const PRETOKENIZE = / ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+/gu;

/** GPT-2's reversible map from bytes to printable unicode characters. */
export function bytesToUnicode() {
  const printable = [];
  for (let b = 0x21; b <= 0x7e; b++) printable.push(b);
  for (let b = 0xa1; b <= 0xac; b++) printable.push(b);
  for (let b = 0xae; b <= 0xff; b++) printable.push(b);
  const map = new Map(printable.map((b) => [b, String.fromCodePoint(b)]));
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (!map.has(b)) map.set(b, String.fromCodePoint(256 + extra++));
  }
  return map;
}

/** Learns `count` merges from the corpus; ties go to the lexicographically first pair. */
function learnMerges(words, count) {
  const merges = [];
  let split = words.map((w) => [...w]);
  for (let i = 0; i < count; i++) {
    const pairs = new Map();
    for (const symbols of split) {
      for (let j = 0; j + 1 < symbols.length; j++) {
        const key = `${symbols[j]} ${symbols[j + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + 1);
      }
    }
    let best;
    for (const [key, n] of pairs) {
      if (!best || n > best.n || (n === best.n && key < best.key)) best = { key, n };
    }
    if (!best) break;
    merges.push(best.key);
    const [left, right] = best.key.split(' ');
    split = split.map((symbols) => mergePair(symbols, left, right));
  }
  return merges;
}

function mergePair(symbols, left, right) {
  const out = [];
  for (let j = 0; j < symbols.length; j++) {
    if (symbols[j] === left && symbols[j + 1] === right) {
      out.push(left + right);
      j++;
    } else {
      out.push(symbols[j]);
    }
  }
  return out;
}

/**
 * Tokens, their llama.cpp types and the merges, ready for the tokenizer.ggml.* keys. `size`
 * pads the vocabulary with unused `<|reserved_N|>` tokens, for a model with a real model's
 * output layer (32000 rows for a 7B): the tokenizer never produces them.
 */
export function buildVocab({ merges: mergeCount = 150, fim = true, size } = {}) {
  const byteMap = bytesToUnicode();
  const encode = (text) => [...Buffer.from(text, 'utf8')].map((b) => byteMap.get(b)).join('');
  const words = (CORPUS.match(PRETOKENIZE) ?? []).map(encode);
  const merges = learnMerges(words, mergeCount);
  const tokens = [...byteMap.values()];
  const seen = new Set(tokens);
  for (const merge of merges) {
    const merged = merge.replace(' ', '');
    if (!seen.has(merged)) {
      seen.add(merged);
      tokens.push(merged);
    }
  }
  const types = tokens.map(() => NORMAL);
  const specials = fim ? [...SpecialTokens, ...FimTokens] : SpecialTokens;
  const special = Object.fromEntries(specials.map((t, i) => [t, tokens.length + i]));
  tokens.push(...specials);
  types.push(...specials.map(() => CONTROL));
  if (size !== undefined && size < tokens.length) throw new Error(`a vocabulary of ${size} tokens is too small: the bytes, merges and special tokens alone are ${tokens.length}`);
  const reserved = [];
  for (let i = 0; tokens.length < (size ?? 0); i++) {
    reserved.push(tokens.length);
    tokens.push(`<|reserved_${i}|>`);
    types.push(UNUSED);
  }
  return { tokens, types, merges, special, reserved };
}
