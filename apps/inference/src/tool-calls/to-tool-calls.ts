import { randomUUID } from 'node:crypto';
import { ErrorCode, type ToolCall, type ToolDefinition } from '@weft/contracts';
import { isObject } from './grammar-schema';
import { characterCount, validateJson } from './validate-json';

export interface RawToolCall {
  name: string;
  arguments: unknown;
}

/** At most this many problems are spelled out in an `argumentsError`. */
const MAX_REPORTED_PROBLEMS = 5;

/**
 * One internal representation of tool calls, whatever produced them: ids are fresh, and each
 * call is checked against its tool's original JSON Schema. A call that fails (an unknown tool,
 * arguments that are not an object, a non-integer where an integer belongs) is kept with an
 * `argumentsError`, so the caller answers the model with that error instead of running it.
 */
export function toToolCalls(
  raw: readonly RawToolCall[],
  tools: readonly ToolDefinition[] | undefined,
  /** The string cap the grammar imposed: a string that reached it was probably cut short. */
  stringCap = Number.POSITIVE_INFINITY,
): ToolCall[] {
  const byName = new Map((tools ?? []).map((tool) => [tool.name, tool]));
  return raw.map((call) => {
    const id = `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
    const tool = byName.get(call.name);
    const args = isObject(call.arguments) ? call.arguments : {};
    if (!tool) {
      return { id, name: call.name, arguments: args, argumentsError: invalid(`Unknown tool "${call.name}"`) };
    }
    if (!isObject(call.arguments)) {
      return { id, name: call.name, arguments: args, argumentsError: invalid('Arguments must be a JSON object') };
    }
    const problems = validateJson(call.arguments, tool.parameters);
    for (const path of cappedStrings(call.arguments, tool.parameters, stringCap, '$')) {
      problems.push(`${path}: reached the ${stringCap}-character cap and was probably cut short; send it in smaller pieces`);
    }
    if (problems.length === 0) return { id, name: call.name, arguments: args };
    const shown = problems.slice(0, MAX_REPORTED_PROBLEMS).join('; ');
    const more = problems.length > MAX_REPORTED_PROBLEMS ? ` (and ${problems.length - MAX_REPORTED_PROBLEMS} more)` : '';
    return { id, name: call.name, arguments: args, argumentsError: invalid(`Arguments do not match the schema of "${call.name}": ${shown}${more}`) };
  });
}

function invalid(message: string) {
  return { code: ErrorCode.ToolArgumentsInvalid, message };
}

/** Paths of strings that are as long as the grammar allowed, where the tool itself set no lower cap. */
function cappedStrings(value: unknown, schema: unknown, cap: number, path: string): string[] {
  if (!Number.isFinite(cap)) return [];
  const own = isObject(schema) ? schema : {};
  if (typeof value === 'string') {
    const limit = typeof own.maxLength === 'number' ? own.maxLength : Number.POSITIVE_INFINITY;
    return limit > cap && characterCount(value) >= cap ? [path] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => cappedStrings(item, own.items, cap, `${path}[${i}]`));
  if (isObject(value)) {
    const properties = isObject(own.properties) ? own.properties : {};
    return Object.entries(value).flatMap(([key, item]) =>
      cappedStrings(item, properties[key] ?? own.additionalProperties, cap, `${path}.${key}`),
    );
  }
  return [];
}
