import type { z } from 'zod';
import type { ApiRoute, HttpMethod } from './api-routes';

/** A body as `fetch` takes it (Node's and the browser's). */
export type RequestBody = NonNullable<RequestInit['body']>;

// ---- path parameters, read from the route's path at compile time ---------------------------------

/** `/v1/sessions/:id/turns/:turnId/cancel` → 'id' | 'turnId'. */
type SegmentParams<P extends string> = P extends `${string}:${infer Name}/${infer Rest}` ? Name | SegmentParams<Rest> : P extends `${string}:${infer Name}` ? Name : never;
/** `/v1/workspaces/:id/files{/*path}` → 'path' (may be left out). */
type OptionalParams<P extends string> = P extends `${string}{/*${infer Name}}` ? Name : never;
/** `/assets/*name` → 'name' (one or more segments). */
type RestParams<P extends string> = P extends `${string}{/*${string}}` ? never : P extends `${string}/*${infer Name}` ? Name : never;

export type PathParams<P extends string> = { readonly [K in SegmentParams<P> | RestParams<P>]: string } & { readonly [K in OptionalParams<P>]?: string };

/** A route's path with its parameters filled in, each segment percent-encoded. */
export function routePath<R extends ApiRoute>(route: R, params: PathParams<R['path']>): string {
  const values = params as Readonly<Record<string, string | undefined>>;
  const segments = (name: string) => (values[name] ?? '').split('/').filter(Boolean).map(encodeURIComponent).join('/');
  return route.path
    .replace(/\{\/\*(\w+)\}/g, (_, name: string) => (segments(name) === '' ? '' : `/${segments(name)}`))
    .replace(/\*(\w+)/g, (_, name: string) => required(route, name, segments(name)))
    .replace(/:(\w+)/g, (_, name: string) => required(route, name, encodeURIComponent(values[name] ?? '')));
}

function required(route: ApiRoute, name: string, value: string): string {
  if (value === '') throw new TypeError(`${route.method} ${route.path}: the path parameter "${name}" is empty`);
  return value;
}

/** `?a=1&b=2` from the defined values, or ''. */
export function queryString(query: Readonly<Record<string, string | number | boolean | undefined>> = {}): string {
  const pairs = Object.entries(query).filter((pair): pair is [string, string | number | boolean] => pair[1] !== undefined);
  return pairs.length === 0 ? '' : `?${new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, String(value)])).toString()}`;
}

// ---- the caller ---------------------------------------------------------------------------------

type Schema<R extends ApiRoute, K extends 'body' | 'response' | 'query'> = R[K] extends z.ZodType ? R[K] : never;
type HasParams<P extends string> = [SegmentParams<P> | RestParams<P> | OptionalParams<P>] extends [never] ? false : true;

/** What one call sends: the path's parameters, the query, and a JSON body where the route takes one. */
export type CallArgs<R extends ApiRoute> = (HasParams<R['path']> extends true ? { readonly params: PathParams<R['path']> } : { readonly params?: undefined }) &
  (R['body'] extends z.ZodType ? { readonly body: z.input<Schema<R, 'body'>> } : { readonly body?: RequestBody }) & {
    readonly query?: R['query'] extends z.ZodType ? z.input<Schema<R, 'query'>> : Readonly<Record<string, string | number | boolean | undefined>>;
    readonly headers?: Readonly<Record<string, string>>;
    readonly signal?: AbortSignal;
    /** For a body that is not JSON (`body: 'gzip'`). */
    readonly contentType?: string;
  };

/** A route whose answer is JSON of a known schema. */
export type JsonRoute = ApiRoute & { readonly response: z.ZodType };
export type ResponseOf<R extends JsonRoute> = z.output<R['response']>;

export interface SendRequest {
  readonly method: HttpMethod;
  /** Path and query, relative to the gateway's base URL. */
  readonly path: string;
  readonly body?: RequestBody;
  readonly contentType?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface ApiTransport {
  /** Sends with the client's credentials and deadlines; throws the client's error for a non-2xx answer. */
  send(request: SendRequest): Promise<Response>;
  /** The client's error for a 2xx answer that does not match the route's schema. */
  unexpected(request: SendRequest, response: Response, problem: string): Error;
}

/**
 * The typed client of the gateway's API, shared by the CLI and the web client: each gives its own
 * transport (credentials, deadlines, how errors read), and every call is checked against the
 * route table (`apiRoutes`) at compile time and its answer against the route's schema at run time.
 */
export class ApiCaller {
  constructor(private readonly transport: ApiTransport) {}

  /** Calls a route whose answer is JSON and returns it parsed by the route's schema. */
  async json<R extends JsonRoute>(route: R, args: CallArgs<R>): Promise<ResponseOf<R>> {
    const request = this.request(route, args);
    const response = await this.transport.send(request);
    const body: unknown = await response.json().catch(() => undefined);
    const parsed = route.response.safeParse(body);
    if (!parsed.success) throw this.transport.unexpected(request, response, parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
    return parsed.data as ResponseOf<R>;
  }

  /** Calls a route and returns its answer as it came (a stream, text, a 204). */
  send<R extends ApiRoute>(route: R, args: CallArgs<R>): Promise<Response> {
    return this.transport.send(this.request(route, args));
  }

  private request<R extends ApiRoute>(route: R, args: CallArgs<R>): SendRequest {
    const path = routePath(route, (args.params ?? {}) as PathParams<R['path']>) + queryString(args.query as Record<string, string | undefined> | undefined);
    const json = typeof route.body === 'object';
    const body = json && args.body !== undefined ? JSON.stringify(args.body) : (args.body as RequestBody | undefined);
    const contentType = args.contentType ?? (json && body !== undefined ? 'application/json' : undefined);
    return { method: route.method, path, body, contentType, headers: args.headers, signal: args.signal };
  }
}
