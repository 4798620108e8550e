import { z } from 'zod';
import { type ApiRoute, apiRoutes } from './api-routes';
import { httpErrorBodySchema } from './responses';

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

const TAG_ORDER = ['Service', 'Me', 'Models', 'Sandbox', 'Workspaces', 'Sessions', 'Permissions', 'Admin', 'OpenAI-compatible', 'Anthropic-compatible'];

/**
 * The gateway's API as an OpenAPI 3.1 document, generated from the route table and its zod
 * schemas (JSON Schema 2020-12, which OpenAPI 3.1 uses as is). Served at `/openapi.json`.
 */
export function openApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const [name, route] of Object.entries(apiRoutes) as Array<[string, ApiRoute]>) {
    // The optional part of a path makes a second path, which needs an operationId of its own.
    for (const [index, path] of openApiPaths(route.path).entries()) {
      paths[path] ??= {};
      paths[path][route.method.toLowerCase()] = operation(index === 0 ? name : `${name}WithPath`, route, path);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Weft',
      version,
      description: 'The gateway of a self-hosted coding-agent platform. Every error is `{ error: { code, message, details? } }` (docs/api.md lists the codes); the compatible APIs answer in their vendor\'s shape.',
    },
    tags: TAG_ORDER.map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A user key (`weft_…`); admin routes take an admin user\'s key or the bootstrap token.' },
      },
      schemas: { Error: jsonSchema(httpErrorBodySchema, 'output') },
    },
  };
}

/** `/v1/workspaces/:id/files{/*path}` → the path without and with the optional part, in OpenAPI's braces. */
export function openApiPaths(expressPath: string): string[] {
  const braces = (path: string) => path.replace(/[:*](\w+)/g, '{$1}');
  const optional = /\{\/\*(\w+)\}/;
  if (!optional.test(expressPath)) return [braces(expressPath)];
  return [braces(expressPath.replace(optional, '')), braces(expressPath.replace(optional, '/*$1'))];
}

function operation(name: string, route: ApiRoute, path: string): Operation {
  const parameters: Operation[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, param]) => ({ name: param, in: 'path', required: true, schema: { type: 'string' } }));
  if (route.query) {
    const query = jsonSchema(route.query, 'input');
    const required = new Set((query.required as string[] | undefined) ?? []);
    for (const [param, schema] of Object.entries((query.properties as Record<string, JsonSchema> | undefined) ?? {})) {
      parameters.push({ name: param, in: 'query', required: required.has(param), schema });
    }
  }
  const status = String(route.status ?? 200);
  const op: Operation = {
    operationId: name,
    summary: route.summary,
    tags: [route.tag],
    ...(parameters.length > 0 && { parameters }),
    ...(route.auth === 'none' ? { security: [] } : { security: [{ apiKey: [] }] }),
    ...(route.auth === 'admin' && { description: 'Admin only.' }),
    responses: {
      [status]: { description: status === '204' ? 'Done; no body' : 'Success', ...(status !== '204' && route.response && { content: content(route.response, 'output') }) },
      default: route.compatible ? { description: `An error in ${route.compatible === 'openai' ? 'OpenAI' : 'Anthropic'}'s shape` } : { description: 'An error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    },
  };
  if (route.body) {
    const body = content(route.body === 'gzip' ? 'application/gzip' : route.body, 'input');
    const instead = route.jsonInstead ? content(route.jsonInstead, 'input') : {};
    op.requestBody = { required: route.body === 'gzip' || !route.body.safeParse(undefined).success, content: { ...body, ...instead } };
  }
  return op;
}

function content(what: z.ZodType | string, io: 'input' | 'output'): Record<string, { schema: JsonSchema }> {
  if (typeof what !== 'string') return { 'application/json': { schema: jsonSchema(what, io) } };
  if (what === 'application/json') return { [what]: { schema: {} } };
  const binary = !what.startsWith('text/') && what !== 'application/x-ndjson';
  return { [what]: { schema: binary ? { type: 'string', contentMediaType: what } : { type: 'string' } } };
}

/** A zod schema as JSON Schema 2020-12, without the `$schema` line that a document's parts do not carry. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const converted = z.toJSONSchema(schema, { io, unrepresentable: 'any', reused: 'inline', cycles: 'throw' }) as JsonSchema;
  delete converted.$schema;
  return converted;
}
