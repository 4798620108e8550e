import { AppError, ErrorCode } from '@weft/contracts';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** Where a workspace keeps its chains: `.weft/chains/<name>.yaml`. */
export const CHAINS_DIR = '.weft/chains';
export const chainNameSchema = z.string().regex(/^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/, 'not a chain name (letters, digits, - and _)');

const name = z.string().regex(/^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/, 'must start with a letter and hold only letters, digits, - and _');
const inputSpec = z.strictObject({ description: z.string().optional(), default: z.string().optional() });
type InputSpec = z.infer<typeof inputSpec>;

const promptStep = z.strictObject({ name, prompt: z.string().min(1, 'must not be empty') });
const toolStep = z.strictObject({ name, tool: z.string().min(1), arguments: z.record(z.string(), z.unknown()).default({}) });

export const chainSchema = z.strictObject({
  description: z.string().optional(),
  /** Inputs by name; a list of names is short for inputs without description or default. */
  inputs: z
    .union([z.array(name), z.record(name, inputSpec.nullable())])
    .default({})
    .transform(
      (inputs): Record<string, InputSpec> =>
        Array.isArray(inputs)
          ? Object.fromEntries(inputs.map((input) => [input, {}]))
          : Object.fromEntries(Object.entries(inputs).map(([key, spec]) => [key, spec ?? {}])),
    ),
  steps: z.array(z.union([promptStep, toolStep])).min(1, 'a chain needs at least one step'),
});
export type Chain = z.infer<typeof chainSchema>;
export type ChainStep = Chain['steps'][number];

/** `{{ inputs.issue }}`, `{{ steps.find.output }}`. */
const VARIABLE = /\{\{\s*([^}]*?)\s*\}\}/g;
const REFERENCE = /^(?:inputs\.([a-zA-Z][a-zA-Z0-9_-]*)|steps\.([a-zA-Z][a-zA-Z0-9_-]*)\.output)$/;

/**
 * Parses and checks a chain file: YAML, the schema, unique step names, tools that exist, and
 * templates that name only declared inputs and earlier steps. Every problem is listed at once.
 */
export function parseChain(chainName: string, text: string, knownTools: ReadonlySet<string>): Chain {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw invalid(chainName, [`not valid YAML: ${(error as Error).message.split('\n')[0]}`]);
  }
  const parsed = chainSchema.safeParse(raw);
  if (!parsed.success) throw invalid(chainName, parsed.error.issues.map((i) => `${i.path.join('.') || '(file)'}: ${i.message}`));
  const chain = parsed.data;
  const problems: string[] = [];
  const earlier = new Set<string>();
  chain.steps.forEach((step, index) => {
    const where = `steps.${index} (${step.name})`;
    if (earlier.has(step.name)) problems.push(`${where}: the step name "${step.name}" is used twice`);
    if ('tool' in step && !knownTools.has(step.tool)) {
      problems.push(`${where}: unknown tool "${step.tool}"; known: ${[...knownTools].join(', ')}`);
    }
    for (const text of templatesOf(step)) {
      for (const [, expression = ''] of text.matchAll(VARIABLE)) {
        const ref = REFERENCE.exec(expression);
        if (!ref) problems.push(`${where}: {{ ${expression} }} is neither inputs.<name> nor steps.<name>.output`);
        else if (ref[1] && !(ref[1] in chain.inputs)) problems.push(`${where}: {{ ${expression} }} names an undeclared input`);
        else if (ref[2] && !earlier.has(ref[2])) problems.push(`${where}: {{ ${expression} }} names no earlier step`);
      }
    }
    earlier.add(step.name);
  });
  if (problems.length > 0) throw invalid(chainName, problems);
  return chain;
}

/** The inputs of one run, defaults filled in; a missing or unknown input is refused by name. */
export function resolveInputs(chainName: string, chain: Chain, given: Record<string, string>): Record<string, string> {
  const problems: string[] = [];
  for (const key of Object.keys(given)) if (!(key in chain.inputs)) problems.push(`unknown input "${key}"`);
  const resolved: Record<string, string> = {};
  for (const [key, spec] of Object.entries(chain.inputs)) {
    const value = given[key] ?? spec.default;
    if (value === undefined) problems.push(`missing input "${key}"${spec.description ? ` (${spec.description})` : ''}`);
    else resolved[key] = value;
  }
  if (problems.length > 0) throw invalid(chainName, problems);
  return resolved;
}

/** Fills a template in; every name in it was checked by `parseChain`. */
export function render(template: string, inputs: Record<string, string>, outputs: ReadonlyMap<string, string>): string {
  return template.replace(VARIABLE, (_, expression: string) => {
    const ref = REFERENCE.exec(expression.trim());
    if (ref?.[1]) return inputs[ref[1]] ?? '';
    if (ref?.[2]) return outputs.get(ref[2]) ?? '';
    return '';
  });
}

/** A tool step's arguments with every string in them rendered. */
export function renderArguments(value: unknown, inputs: Record<string, string>, outputs: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return render(value, inputs, outputs);
  if (Array.isArray(value)) return value.map((item) => renderArguments(item, inputs, outputs));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderArguments(v, inputs, outputs)]));
  }
  return value;
}

function templatesOf(step: ChainStep): string[] {
  if ('prompt' in step) return [step.prompt];
  const strings: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') Object.values(value).forEach(walk);
  };
  walk(step.arguments);
  return strings;
}

function invalid(chainName: string, problems: string[]): AppError {
  return new AppError(ErrorCode.ChainInvalid, `Chain "${chainName}" is invalid: ${problems.join('; ')}`, { chain: chainName, problems });
}
