import { AppError, ErrorCode, type GenerateRequest, type ToolDefinition } from '@weft/contracts';
import { countStringFields, toGrammarSchema, type GrammarSchemaOptions, type JsonSchema } from './grammar-schema';

/** How a request is answered: free text, text or native tool calls, a forced tool call, or JSON. */
export type ReplyMode =
  | { kind: 'text' }
  | { kind: 'tools'; tools: ToolDefinition[] }
  | { kind: 'forced-tool'; tools: ToolDefinition[] }
  | { kind: 'json'; schema: JsonSchema };

export function replyMode(request: GenerateRequest): ReplyMode {
  const choice = request.toolChoice ?? 'auto';
  const tools = choice === 'none' ? [] : (request.tools ?? []);
  if (request.jsonSchema && tools.length > 0) {
    throw new AppError(ErrorCode.InvalidRequest, 'jsonSchema cannot be combined with tools (set toolChoice "none")');
  }
  if (request.jsonSchema) return { kind: 'json', schema: request.jsonSchema };
  if (typeof choice === 'object') {
    const tool = tools.find((t) => t.name === choice.name);
    if (!tool) throw new AppError(ErrorCode.InvalidRequest, `toolChoice names "${choice.name}", which is not among the tools`);
    return { kind: 'forced-tool', tools: [tool] };
  }
  if (choice === 'required') {
    if (tools.length === 0) throw new AppError(ErrorCode.InvalidRequest, 'toolChoice "required" needs at least one tool');
    return { kind: 'forced-tool', tools };
  }
  return tools.length > 0 ? { kind: 'tools', tools } : { kind: 'text' };
}

/**
 * Every string argument gets an equal share of the reply budget at this many characters a token.
 * Code averages 3-4 characters a token; 2 leaves room for the JSON around the strings and for
 * denser text, so a runaway string is closed by the grammar before the budget runs out.
 */
const CHARS_PER_TOKEN = 2;
const MIN_STRING_CHARS = 32;
export const MAX_STRING_CHARS = 32_768;
export const MAX_ARRAY_ITEMS = 64;

/**
 * Caps strings so that a model cannot run out of tokens inside one (the grammar closes the
 * string at the cap; a string that reaches it is reported as probably cut short).
 */
export function grammarLimits(tools: readonly ToolDefinition[] | JsonSchema, replyTokens: number): GrammarSchemaOptions {
  const strings = Array.isArray(tools)
    ? Math.max(...tools.map((t: ToolDefinition) => countStringFields(t.parameters)), 1)
    : Math.max(countStringFields(tools), 1);
  const share = Math.floor((replyTokens * CHARS_PER_TOKEN) / strings);
  return { maxStringChars: Math.max(MIN_STRING_CHARS, Math.min(MAX_STRING_CHARS, share)), maxArrayItems: MAX_ARRAY_ITEMS };
}

/** `{"name": <tool>, "arguments": {...}}` for one of the tools: the grammar of a forced call. */
export function forcedCallSchema(tools: readonly ToolDefinition[], limits: GrammarSchemaOptions): JsonSchema {
  const branches = tools.map((tool) => ({
    type: 'object',
    properties: { name: { const: tool.name }, arguments: toGrammarSchema(tool.parameters, limits) },
  }));
  return branches.length === 1 ? (branches[0] as JsonSchema) : { oneOf: branches };
}

/** The instruction that goes with a forced call, since the chat format's own tool docs are off. */
export function forcedCallInstruction(tools: readonly ToolDefinition[]): string {
  const list = tools.map((t) => `- ${t.name}: ${t.description}\n  arguments: ${JSON.stringify(t.parameters)}`).join('\n');
  return `Answer with exactly one tool call, as a JSON object {"name": <tool name>, "arguments": {...}}.\nTools:\n${list}`;
}
