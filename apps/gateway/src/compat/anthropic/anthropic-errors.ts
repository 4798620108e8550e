import type { AppError } from '@weft/contracts';
import type { z } from 'zod';
import { badRequest } from '../compat-error';

/** Where a field sits in the body: `['messages', 1, 'content', 0]`. */
export type FieldPath = readonly PropertyKey[];

/** `messages.1.content.0.type`, as Anthropic's messages name a field (clients match on it). */
export function dottedPath(path: FieldPath): string {
  return path.map(String).join('.');
}

/** `messages[1].content[0].type`: Weft's own `param` detail, as for the OpenAI routes. */
function bracketedPath(path: FieldPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i > 0 ? '.' : ''}${String(p)}`)).join('');
}

/** A 400 whose message reads as Anthropic's do: `<field>: <what is wrong>`. */
export function invalidField(path: FieldPath, message: string): AppError {
  return badRequest(path.length > 0 ? `${dottedPath(path)}: ${message}` : message, path.length > 0 ? bracketedPath(path) : undefined);
}

/**
 * Anthropic's answer to a field it does not take. Claude Code and the SDKs match this phrase to
 * stop sending an optional field (`context_management`, `output_config.format`…) and retry.
 */
export function extraInput(path: FieldPath, why?: string): AppError {
  return invalidField(path, `Extra inputs are not permitted${why ? ` (${why})` : ''}`);
}

/** A block or tool whose `type` Weft does not serve, worded as Anthropic's tagged unions. */
export function unexpectedTag(path: FieldPath, tag: string, expected: readonly string[], why: string): AppError {
  const tags = expected.map((t) => `'${t}'`).join(', ');
  return invalidField([...path, 'type'], `Input tag '${tag}' found using 'type' does not match any of the expected tags: ${tags} (${why})`);
}

const TYPE_NOUNS: Record<string, string> = {
  string: 'a valid string',
  int: 'a valid integer',
  number: 'a valid number',
  boolean: 'a valid boolean',
  array: 'a valid list',
  object: 'a valid dictionary',
  record: 'a valid dictionary',
};

/** A schema failure in Anthropic's (pydantic's) words: `messages.1.role: Input should be 'user' or 'assistant'`. */
export function schemaError(issue: z.core.$ZodIssue): AppError {
  const missing = !('input' in issue) || issue.input === undefined;
  switch (issue.code) {
    case 'unrecognized_keys':
      return extraInput([...issue.path, issue.keys[0] ?? '']);
    case 'invalid_type':
      return invalidField(issue.path, missing ? 'Field required' : `Input should be ${TYPE_NOUNS[issue.expected] ?? `of type ${issue.expected}`}`);
    case 'invalid_value':
      return invalidField(issue.path, missing ? 'Field required' : `Input should be ${alternatives(issue.values.map((v) => `'${String(v)}'`))}`);
    case 'too_small':
      return invalidField(
        issue.path,
        issue.origin === 'array' ? `List should have at least ${String(issue.minimum)} item after validation, not 0` : `Input should be greater than or equal to ${String(issue.minimum)}`,
      );
    case 'too_big':
      return invalidField(issue.path, `Input should be less than or equal to ${String(issue.maximum)}`);
    case 'invalid_union':
      if (issue.discriminator !== undefined && 'options' in issue) {
        const found = typeof issue.input === 'object' && issue.input !== null ? (issue.input as Record<string, unknown>)[issue.discriminator] : undefined;
        const tags = (issue.options ?? []).map((o) => `'${String(o)}'`).join(', ');
        return invalidField(issue.path.slice(0, -1), `Input tag '${String(found)}' found using '${issue.discriminator}' does not match any of the expected tags: ${tags}`);
      }
      return invalidField(issue.path, issue.message);
    case 'custom':
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'not_multiple_of':
      return invalidField(issue.path, issue.message);
  }
}

/** `'a', 'b' or 'c'`. */
function alternatives(values: string[]): string {
  return values.length <= 1 ? (values[0] ?? '') : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
