import { createHash } from 'node:crypto';
import type { ToolChoice, ToolDefinition } from '@weft/contracts';
import { z } from 'zod';
import { badRequest } from '../compat-error';
import { parseAt } from '../request-fields';

const functionToolSchema = z.object({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

const namespaceToolSchema = z.object({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(functionToolSchema),
});

/** Tools the model may read about but the server cannot run: left out, so clients that always send them still work. */
const LEFT_OUT = /^web_search/;

/** Where a tool the worker knows by a flat name lives in the client's terms. */
export interface ClientToolName {
  name: string;
  namespace?: string;
}

/** The tools as the worker sees them, and the way back to the client's names. */
export interface ResponseTools {
  tools: ToolDefinition[];
  /** Flat name → the client's name, for namespaced tools only. */
  namespaced: Map<string, ClientToolName>;
  /** Hosted tools that were left out, for a warning. */
  leftOut: string[];
}

const WORKER_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The name a namespaced tool has on the worker (`multi_agent_v1__spawn_agent`). Deterministic, so
 * `function_call` items in later requests map the same way without their tools being sent again;
 * names the worker would refuse become a readable prefix and a hash.
 */
export function flatToolName(namespace: string, name: string): string {
  const plain = `${namespace}__${name}`;
  if (WORKER_NAME.test(plain)) return plain;
  const hash = createHash('sha256').update(plain).digest('hex').slice(0, 8);
  return `${plain.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 55)}_${hash}`;
}

/** A tool name as the worker knows it: namespaced ones flattened. */
export function workerToolName(name: string, namespace?: string | null): string {
  return namespace ? flatToolName(namespace, name) : name;
}

/**
 * Function tools pass through; a `namespace` tool's functions become flat names; `web_search`
 * (Codex always sends it) is left out; other hosted tools (file search, computer use, code
 * interpreter, image generation, MCP, custom grammars…) are refused, naming `tools[i].type`.
 */
export function toResponseTools(input: ReadonlyArray<{ type: string }> | null | undefined): ResponseTools {
  const result: ResponseTools = { tools: [], namespaced: new Map(), leftOut: [] };
  const seen = new Set<string>();
  const add = (tool: z.infer<typeof functionToolSchema>, param: string, namespace?: string) => {
    const name = workerToolName(tool.name, namespace);
    if (seen.has(name)) throw badRequest(`${param}.name: the tool "${name}" is declared twice`, `${param}.name`);
    seen.add(name);
    if (namespace) result.namespaced.set(name, { name: tool.name, namespace });
    result.tools.push({ name, description: tool.description ?? '', parameters: tool.parameters ?? { type: 'object', properties: {} } });
  };
  (input ?? []).forEach((raw, i) => {
    const param = `tools[${i}]`;
    if (raw.type === 'function') add(parseAt(functionToolSchema, raw, param), param);
    else if (raw.type === 'namespace') {
      const space = parseAt(namespaceToolSchema, raw, param);
      space.tools.forEach((tool, j) => add(tool, `${param}.tools[${j}]`, space.name));
    } else if (LEFT_OUT.test(raw.type)) result.leftOut.push(raw.type);
    else throw badRequest(`${param}.type "${raw.type}" is a hosted tool Weft cannot run; declare function tools instead`, `${param}.type`);
  });
  return result;
}

const toolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), name: z.string().min(1), namespace: z.string().nullish() }),
  z.looseObject({ type: z.string() }),
]);
export type ResponseToolChoice = z.infer<typeof toolChoiceSchema>;
export { toolChoiceSchema as responseToolChoiceSchema };

/** `tool_choice` in the worker's terms; forcing a hosted tool or an allowed-tools subset → 400. */
export function toToolChoice(choice: ResponseToolChoice): ToolChoice {
  if (typeof choice === 'string') return choice;
  if (choice.type === 'function' && typeof choice.name === 'string') {
    return { name: workerToolName(choice.name, typeof choice.namespace === 'string' ? choice.namespace : undefined) };
  }
  throw badRequest(`tool_choice of type "${choice.type}" is not supported: use "auto", "none", "required" or a function`, 'tool_choice');
}

/** The client's name of a tool the model called: namespaced tools get their namespace back. */
export function clientToolName(tools: ResponseTools['namespaced'], workerName: string): ClientToolName {
  return tools.get(workerName) ?? { name: workerName };
}
