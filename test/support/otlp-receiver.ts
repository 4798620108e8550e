import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

// Node also runs this file as is in the e2e tier's receiver container (e2e/support/otlp-receiver-server.mjs):
// it imports nothing but Node, and uses only TypeScript that Node's type stripping erases.

/** One span as an OTLP/HTTP JSON export carries it, flattened with its service's name. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's enum: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** 2 when the span failed. */
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  attributes?: OtlpAttribute[];
  status?: { code?: number };
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  close: () => Promise<void>;
}

/**
 * An OTLP/HTTP traces endpoint (`POST /v1/traces`, JSON, as @opentelemetry/exporter-trace-otlp-http
 * sends it) that keeps what it receives: in `spans`, and through `onSpans` (the e2e container
 * appends them to a file). Anything but JSON is answered 415, naming what it takes.
 */
export async function startOtlpReceiver(
  options: { host?: string; port?: number; onSpans?: (spans: ReceivedSpan[]) => void } = {},
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    void receive(req, res, (received) => {
      spans.push(...received);
      options.onSpans?.(received);
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    spans,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

async function receive(req: IncomingMessage, res: ServerResponse, keep: (spans: ReceivedSpan[]) => void): Promise<void> {
  if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/traces') return answer(res, 404, { error: 'POST /v1/traces only' });
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    return answer(res, 415, { error: `OTLP/HTTP JSON only, got ${req.headers['content-type'] ?? 'no content type'}` });
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    keep(flatten(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport));
  } catch (error) {
    return answer(res, 400, { error: `not an OTLP JSON export: ${error instanceof Error ? error.message : String(error)}` });
  }
  answer(res, 200, {});
}

function flatten(body: OtlpExport): ReceivedSpan[] {
  return (body.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        service,
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v = value.stringValue ?? value.boolValue ?? value.doubleValue ?? (value.intValue === undefined ? undefined : Number(value.intValue));
    if (v !== undefined) out[key] = v;
  }
  return out;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
