import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Queues, type Route, agentJobSchema } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { connectRpcClient, createNatsMicroservice, type RpcClient } from '@weft/messaging';
import { SpanKind, httpServerTracing, inSpan, startTracing, type Tracing } from '@weft/telemetry';
import { type Job, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { interval, map, take } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startNats, startRedis, type StartedService } from '../../../../test/support/containers';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../../../../test/support/otlp-receiver';
import { traceTurnRun } from '../agent/turn-tracing';
import type { GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { TurnQueue } from './turn-queue';

const subject = `weft.test.v1.trace${Math.random().toString(36).slice(2, 8)}`;
const exec: Route<z.ZodObject<{ command: z.ZodString }>, z.ZodObject<{ exitCode: z.ZodNumber }>> = {
  subject: `${subject}.exec`,
  request: z.object({ command: z.string() }),
  response: z.object({ exitCode: z.number() }),
  streamed: false,
};
const generate: Route<z.ZodObject<{ tokens: z.ZodNumber }>, z.ZodNumber> = {
  subject: `${subject}.generate`,
  request: z.object({ tokens: z.number().int() }),
  response: z.number(),
  streamed: true,
};

/** Stands in for the sandbox and inference workers: real handlers on the real NATS transport. */
@Controller()
class Workers {
  @MessagePattern(exec.subject)
  exec(@Payload() _body: { command: string }) {
    return { exitCode: 0 };
  }

  @MessagePattern(generate.subject)
  generate(@Payload() body: { tokens: number }) {
    return interval(5).pipe(take(body.tokens), map((i) => i));
  }
}

@Module({ controllers: [Workers] })
class WorkersModule {}

// A caller's trace (a client, a proxy in front of the gateway): the turn must join it.
const CALLER_TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN_ID = '00f067aa0ba902b7';

describe('one turn is one trace: HTTP request, BullMQ job and NATS headers carry the W3C context', () => {
  let nats: StartedService;
  let redis: StartedService;
  let receiver: OtlpReceiver;
  let tracing: Tracing;
  let workers: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };
  let queue: TurnQueue;
  let worker: Worker;
  let workerConnection: Redis;
  let http: Server;
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    [nats, redis, receiver] = await Promise.all([startNats(), startRedis(), startOtlpReceiver()]);
    tracing = startTracing('weft-gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    workers = await createNatsMicroservice(WorkersModule, { nats: nats.url, queue: 'trace-test', logger: createLogger('trace-test', 'silent') });
    await workers.listen();
    rpc = await connectRpcClient(nats.url, 5_000);
    const keys = new RedisKeys(`trace-test:${Date.now()}:`);
    queue = new TurnQueue({ REDIS_URL: redis.url } as GatewaySettings, keys);

    // The gateway's side of a turn, as the turn worker runs it: a model step, then a tool call.
    workerConnection = new Redis(redis.url, { maxRetriesPerRequest: null });
    const ran = new Promise<void>((resolve, reject) => {
      worker = new Worker(
        Queues.agentTurns,
        async (job: Job) => {
          const turn = agentJobSchema.parse(job.data);
          await traceTurnRun(turn, job.timestamp, async () => {
            await inSpan('chat tiny', { kind: SpanKind.CLIENT }, async () => {
              const tokens: number[] = [];
              for await (const token of rpc.client.stream(generate, { tokens: 3 })) tokens.push(token);
              expect(tokens).toEqual([0, 1, 2]);
            });
            await inSpan('tool execute_code', {}, () => rpc.client.request(exec, { command: 'true' }));
            return { kind: 'ended' };
          });
        },
        { connection: workerConnection, prefix: keys.bullPrefix() },
      );
      worker.on('completed', () => resolve());
      worker.on('failed', (_job, error) => reject(error));
    });

    // The gateway's HTTP edge: the middleware, then a handler that queues the turn.
    http = createServer((req, res) =>
      httpServerTracing()(req, res, () => {
        void queue.enqueue({ sessionId: 's1', turnId: 't1', userId: 'u1' }).then(() => res.writeHead(202).end());
      }),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const status = await post(`http://127.0.0.1:${(http.address() as AddressInfo).port}/v1/sessions/s1/messages`, {
      traceparent: `00-${CALLER_TRACE_ID}-${CALLER_SPAN_ID}-01`,
    });
    expect(status).toBe(202);
    await ran;
    // Shutting down exports what the batch processor still holds.
    await tracing.shutdown();
    spans = receiver.spans;
  }, 120_000);

  afterAll(async () => {
    await tracing?.shutdown();
    await worker?.close();
    await workerConnection?.quit();
    await queue?.onApplicationShutdown();
    await rpc?.close();
    await workers?.close();
    http?.close();
    await receiver?.close();
    await Promise.all([nats?.stop(), redis?.stop()]);
  });

  const named = (name: string) => {
    const found = spans.filter((s) => s.name === name);
    expect(found, `one span named ${name} among ${spans.map((s) => s.name).join(', ')}`).toHaveLength(1);
    return found[0] as ReceivedSpan;
  };

  it('exports every span of the turn under the caller’s trace id, from this service', () => {
    expect(spans.length).toBe(7);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([CALLER_TRACE_ID]));
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['weft-gateway']));
  });

  it('makes the HTTP request the caller’s child and the queue wait and run the request’s', () => {
    const request = named('POST');
    expect(request).toMatchObject({ parentSpanId: CALLER_SPAN_ID, kind: 2, attributes: { 'http.response.status_code': 202 } });
    expect(named('turn.queued')).toMatchObject({ parentSpanId: request.spanId, attributes: { 'weft.turn.id': 't1' } });
    expect(named('turn.run')).toMatchObject({ parentSpanId: request.spanId, attributes: { 'weft.turn.outcome': 'ended' } });
  });

  it('puts the workers’ spans, named by subject, under the step and the tool call that sent them', () => {
    const run = named('turn.run');
    const step = named('chat tiny');
    const tool = named('tool execute_code');
    expect([step.parentSpanId, tool.parentSpanId]).toEqual([run.spanId, run.spanId]);
    expect(named(generate.subject)).toMatchObject({ parentSpanId: step.spanId, kind: 2, attributes: { 'messaging.system': 'nats' } });
    expect(named(exec.subject)).toMatchObject({ parentSpanId: tool.spanId, kind: 2 });
  });
});

function post(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
