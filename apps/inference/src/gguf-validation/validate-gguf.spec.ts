import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, makeTestModel, removeDir } from '../testing/worker-harness';
import { GgufFileChecks, validateModelFile } from './gguf-checks';
import { hostileCorpus, piece, preamble, validGguf } from './testing/craft-gguf';
import { GGUF_LIMITS, type GgufLimits } from './validate-gguf';

let dir: string;
let fileNo = 0;

async function fileOf(bytes: Uint8Array): Promise<string> {
  const path = join(dir, `f${++fileNo}.gguf`);
  await writeFile(path, bytes);
  return path;
}

/** The validator's answer: the header, or the coded error; anything else fails the test. */
async function outcome(path: string, limits?: GgufLimits): Promise<{ ok: true } | { ok: false; field: string; message: string }> {
  try {
    await validateModelFile(path, limits);
    return { ok: true };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== ErrorCode.ModelFileInvalid) throw error;
    return { ok: false, field: String(error.details?.field), message: error.message };
  }
}

beforeAll(async () => {
  dir = await makeTempDir('weft-gguf-');
});

afterAll(async () => {
  await removeDir(dir);
});

describe('the GGUF validator', () => {
  it("accepts the project's test model and reads its metadata", async () => {
    const path = await makeTestModel(dir, 'tiny.gguf');
    const header = await validateModelFile(path);
    expect(header.version).toBe(3);
    expect(header.tensorCount).toBeGreaterThan(0);
    expect(header.metadata.get('general.architecture')?.value).toBe('llama');
    expect(header.metadata.get('tokenizer.ggml.tokens')).toMatchObject({ arrayOf: 8 });
    expect(typeof header.metadata.get('tokenizer.chat_template')?.value).toBe('string');
  });

  it('calls a copy of a real model cut short truncated', async () => {
    const whole = await readFile(await makeTestModel(dir, 'medium.gguf', ['--layers', '4', '--embedding', '128', '--feed-forward', '256']));
    for (const length of [100_000, whole.length - 1]) {
      expect(await outcome(await fileOf(whole.subarray(0, length)))).toMatchObject({ ok: false, message: expect.stringContaining('the GGUF is truncated') });
    }
  });

  it('accepts a small crafted GGUF', async () => {
    expect(await outcome(await fileOf(validGguf()))).toEqual({ ok: true });
  });

  it.each(hostileCorpus())('refuses the hostile file $name, naming the field', async ({ bytes, field }) => {
    const result = await outcome(await fileOf(bytes));
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.field).toMatch(field);
  });

  it('says what is wrong with a header claiming 2^62 tensors', async () => {
    const [file] = hostileCorpus();
    const path = await fileOf(file?.bytes ?? Buffer.alloc(0));
    expect(await outcome(path)).toEqual({ ok: false, field: 'tensor_count', message: expect.stringMatching(/: tensor_count: claims 4611686018427387904 tensors; Weft reads at most 65536$/) });
  });

  it('refuses a header larger than the byte budget', async () => {
    const big = Buffer.concat([preamble(3, 0, 1), piece.str('general.architecture'), piece.u32(8), piece.str('x'.repeat(10_000))]);
    const result = await outcome(await fileOf(big), { ...GGUF_LIMITS, maxHeaderBytes: 4096 });
    expect(result).toMatchObject({ ok: false, message: expect.stringContaining('the header runs past 4096 bytes') });
  });

  it('remembers a refused file until it changes', async () => {
    const checks = new GgufFileChecks();
    const path = await fileOf(Buffer.from('not a model'));
    expect(await checks.problemOf(path)).toMatchObject({ field: 'magic' });
    await writeFile(path, validGguf());
    expect(await checks.problemOf(path)).toBeUndefined();
  });

  it('never hangs, never reads past its budget, and throws only its coded error on mutated headers', async () => {
    const valid = validGguf();
    const seed = Number(process.env.WEFT_FUZZ_SEED ?? Date.now() % 2_147_483_647);
    console.log(`GGUF fuzz seed ${seed} (WEFT_FUZZ_SEED=${seed} replays it)`);
    const limits: GgufLimits = { ...GGUF_LIMITS, maxHeaderBytes: 64 * 1024, timeBudgetMs: 2_000 };
    const u64 = fc.oneof(fc.bigInt({ min: 0n, max: 64n }), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.constantFrom(1n << 62n, 10_000_000n, (1n << 63n) - 1n));
    const mutation = fc.oneof(
      // Bytes overwritten anywhere in the header.
      fc.array(fc.tuple(fc.nat({ max: valid.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }).map((edits) => {
        const bytes = Buffer.from(valid);
        for (const [at, value] of edits) bytes[at] = value;
        return bytes;
      }),
      // A 64-bit count or length replaced where one is read.
      fc.tuple(fc.constantFrom(8, 16, 24, 56, 109), u64).map(([at, value]) => {
        const bytes = Buffer.from(valid);
        bytes.writeBigUInt64LE(value, at);
        return bytes;
      }),
      // Cut short anywhere.
      fc.nat({ max: valid.length }).map((length) => valid.subarray(0, length)),
      // Random bytes after a plausible preamble.
      fc.tuple(fc.constantFrom(2, 3), u64, u64, fc.uint8Array({ maxLength: 512 })).map(([version, tensors, entries, rest]) => Buffer.concat([preamble(version, tensors, entries), rest])),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async (bytes) => {
        await outcome(await fileOf(bytes), limits);
      }),
      { numRuns: 400, seed },
    );
  });
});
