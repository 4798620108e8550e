import { Controller, type INestMicroservice, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, ErrorCode, type Route } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { NEVER, interval, map, take } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startNats, type StartedService } from '../../../test/support/containers';
import { connectRpcClient } from './rpc-client.factory';
import { createNatsMicroservice } from './microservice';
import type { RpcClient } from './rpc-client';
import { ZodPayloadPipe } from './rpc-server';

const subject = `weft.test.v1.${Math.random().toString(36).slice(2)}`;
const echo: Route<z.ZodObject<{ text: z.ZodString }>, z.ZodObject<{ text: z.ZodString }>> = {
  subject: `${subject}.echo`,
  request: z.object({ text: z.string().min(1) }),
  response: z.object({ text: z.string() }),
  streamed: false,
};
const count: Route<z.ZodObject<{ n: z.ZodNumber }>, z.ZodNumber> = {
  subject: `${subject}.count`,
  request: z.object({ n: z.number().int() }),
  response: z.number(),
  streamed: true,
};
const silent = { ...echo, subject: `${subject}.silent` };
const unheard = { ...echo, subject: `${subject}.unheard` };

@Controller()
class TestHandlers {
  @MessagePattern(echo.subject)
  echo(@Payload(new ZodPayloadPipe(echo.request)) body: { text: string }) {
    if (body.text === 'fail') throw new AppError(ErrorCode.FileNotFound, 'no such thing', { path: 'x' });
    return body;
  }

  @MessagePattern(silent.subject)
  silent() {
    return NEVER;
  }

  @MessagePattern(count.subject)
  count(@Payload() body: { n: number }) {
    return interval(20).pipe(take(body.n), map((i) => i + 1));
  }
}

@Module({ controllers: [TestHandlers] })
class TestModule {}

describe('RpcClient over a real NATS server', () => {
  let nats: StartedService;
  let server: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };

  beforeAll(async () => {
    nats = await startNats();
    server = await createNatsMicroservice(TestModule, { nats: nats.url, queue: 'rpc-test', logger: createLogger('rpc-test', 'silent') });
    await server.listen();
    rpc = await connectRpcClient(nats.url, 2_000);
  });

  afterAll(async () => {
    await rpc?.close();
    await server?.close();
    await nats?.stop();
  });

  it('validates the reply and returns it', async () => {
    await expect(rpc.client.request(echo, { text: 'hi' })).resolves.toEqual({ text: 'hi' });
  });

  it('refuses an invalid payload before sending, naming the field', async () => {
    const error = await rpc.client.request(echo, { text: '' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed });
    expect((error as AppError).message).toContain('text');
  });

  it('turns a worker error back into an AppError with the same code and details', async () => {
    const error = await rpc.client.request(echo, { text: 'fail' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.FileNotFound, details: { path: 'x' } });
  });

  it('says no worker listens, retryably, when a subject has no subscriber', async () => {
    const error = await rpc.client.request(unheard, { text: 'hi' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.NoResponders, retryable: true });
  });

  it('gives up with a retryable TRANSPORT.TIMEOUT when a worker never answers', async () => {
    const error = await rpc.client.request(silent, { text: 'hi' }, { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.Timeout, retryable: true });
  });

  it('streams every message of a streamed reply in order', async () => {
    const seen: number[] = [];
    for await (const n of rpc.client.stream(count, { n: 5 })) seen.push(n);
    expect(seen).toEqual([1, 2, 3, 4, 5]);
  });

  it('ends a stream promptly when its signal aborts', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    for await (const n of rpc.client.stream(count, { n: 1000 }, { signal: controller.signal })) {
      seen.push(n);
      if (n === 3) setTimeout(() => controller.abort(), 0);
    }
    expect(seen.length).toBeLessThan(10);
  });
});
