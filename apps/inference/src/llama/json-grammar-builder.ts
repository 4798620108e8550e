import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { AppError, ErrorCode } from '@weft/contracts';
import type { LlamaBackend, NodeLlamaCpp } from './llama-runtime';
import { INTEGER_GBNF, NUMBER_GBNF } from './number-grammar-patch';

type Grammar = InstanceType<NodeLlamaCpp['LlamaGrammar']>;

/** INFERENCE_GRAMMAR_BUDGET_MS's default, for backends built without the setting (tests). */
export const DEFAULT_GRAMMAR_BUDGET_MS = 2000;

/**
 * Runs in a thread of its own: node-llama-cpp's JSON Schema to GBNF translation (the costly part
 * of `createGrammarForJsonSchema`, about 15 µs a property and superlinear in one enum's values),
 * with the worker's tightened number rules (number-grammar-patch.ts) applied in that thread too.
 */
const TRANSLATE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const number = await import(workerData.numberModule).catch(() => undefined);
  if (number && number.GbnfNumber && typeof number.GbnfNumber.prototype.getGrammar === 'function') {
    number.GbnfNumber.prototype.getGrammar = function () { return this.allowFractional ? workerData.numberGbnf : workerData.integerGbnf; };
  }
  const { getGbnfGrammarForGbnfJsonSchema } = await import(workerData.translateModule);
  parentPort.postMessage({ gbnf: getGbnfGrammarForGbnfJsonSchema(workerData.schema) });
})().catch((error) => parentPort.postMessage({ error: String((error && error.message) || error) }));
`;

/**
 * A JSON Schema's grammar, built off the main thread (which serves every user) within a time
 * budget: past it the thread is stopped and the request refused. Only the parse of the finished
 * GBNF text, a few milliseconds for a schema within the REQUEST_SCHEMA_* limits, runs on the
 * main thread, as node-llama-cpp's own `createGrammarForJsonSchema` then does.
 */
export async function buildJsonSchemaGrammar(backend: LlamaBackend, schema: unknown, budgetMs = DEFAULT_GRAMMAR_BUDGET_MS): Promise<Grammar> {
  const gbnf = await translateToGbnf(schema, budgetMs);
  return backend.llama.createGrammar({ grammar: gbnf, stopGenerationTriggers: [backend.lib.LlamaText(['\n'.repeat(4)])], trimWhitespaceSuffix: true });
}

/** node-llama-cpp's GBNF for a JSON Schema, translated in a thread that is stopped past `budgetMs`. */
export function translateToGbnf(schema: unknown, budgetMs: number): Promise<string> {
  const dist = dirname(require.resolve('node-llama-cpp'));
  const workerData = {
    schema,
    translateModule: pathToFileURL(join(dist, 'utils/gbnfJson/getGbnfGrammarForGbnfJsonSchema.js')).href,
    numberModule: pathToFileURL(join(dist, 'utils/gbnfJson/terminals/GbnfNumber.js')).href,
    integerGbnf: INTEGER_GBNF,
    numberGbnf: NUMBER_GBNF,
  };
  return new Promise<string>((resolve, reject) => {
    const thread = new Worker(TRANSLATE, { eval: true, workerData });
    const timer = setTimeout(() => {
      reject(
        new AppError(
          ErrorCode.InvalidRequest,
          `The JSON Schema's grammar took longer than ${budgetMs} ms to build (INFERENCE_GRAMMAR_BUDGET_MS); send a smaller schema`,
          { budgetMs, setting: 'INFERENCE_GRAMMAR_BUDGET_MS' },
        ),
      );
      void thread.terminate();
    }, budgetMs);
    const settle = (outcome: () => void) => {
      clearTimeout(timer);
      outcome();
      void thread.terminate();
    };
    thread.once('message', (message: { gbnf?: string; error?: string }) =>
      settle(() => (message.gbnf !== undefined ? resolve(message.gbnf) : reject(new Error(message.error ?? 'no grammar')))),
    );
    thread.once('error', (error) => settle(() => reject(error)));
    thread.once('exit', (code) => settle(() => reject(new Error(`the grammar thread exited with code ${code}`))));
  });
}
