import type { AddressInfo } from 'node:net';
import { Body, Controller, HttpCode, Module, Param, Post, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { type ApiRoute, ErrorCode } from '@weft/contracts';
import { createLogger } from '@weft/logging';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpRoutes } from '../test/http-routes';
import { API_ROUTE, Route } from './api-route.decorator';
import { AppExceptionFilter } from './app-exception.filter';
import { ZodValidationPipe } from './zod-validation.pipe';

const addThing = {
  method: 'POST',
  path: '/v1/boxes/:box/things',
  summary: 'Add a thing',
  tag: 'Test',
  auth: 'none',
  status: 201,
  query: z.strictObject({ dryRun: z.enum(['true', 'false']).optional() }),
  body: z.strictObject({ name: z.string().min(1) }),
} as const satisfies ApiRoute;
const answerThing = { method: 'POST', path: '/v1/things/:id/answer', summary: 'Answer', tag: 'Test', auth: 'none' } as const satisfies ApiRoute;
const boxPipe = new ZodValidationPipe(z.string().regex(/^box_[a-z]+$/));

@Controller()
class ThingsController {
  @Route(addThing)
  add(@Param('box', boxPipe) box: string, @Query() query: { dryRun?: string }, @Body() body: { name: string }) {
    return { box, dryRun: query.dryRun === 'true', name: body.name };
  }

  @Route(answerThing)
  answer(@Param('id') id: string) {
    return { id };
  }
}

/** The same handler with its contract written inline, as controllers were before `Route`. */
@Controller('v1/inline/:box/things')
class InlineThingsController {
  @Post()
  @HttpCode(201)
  add(
    @Param('box', boxPipe) box: string,
    @Query(new ZodValidationPipe(addThing.query)) query: { dryRun?: string },
    @Body(new ZodValidationPipe(addThing.body)) body: { name: string },
  ) {
    return { box, dryRun: query.dryRun === 'true', name: body.name };
  }
}

@Module({ controllers: [ThingsController, InlineThingsController] })
class ThingsModule {}

describe('Route: a handler served from its route table entry', () => {
  let app: NestExpressApplication;
  let base: string;
  const call = (path: string, body?: unknown) =>
    fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}), signal: AbortSignal.timeout(5000) });

  beforeAll(async () => {
    app = await NestFactory.create<NestExpressApplication>(ThingsModule, { logger: false });
    app.useGlobalFilters(new AppExceptionFilter(createLogger('gateway', 'silent')));
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  });
  afterAll(() => app.close());

  it('registers the method and full path of the entry, and keeps the entry on the handler', () => {
    expect(httpRoutes(app)).toEqual(expect.arrayContaining([{ method: 'POST', path: addThing.path }, { method: 'POST', path: answerThing.path }]));
    expect(Reflect.getMetadata(API_ROUTE, ThingsController.prototype.add)).toBe(addThing);
  });

  it("answers with the entry's status, and 200 for a POST whose entry names none", async () => {
    const added = await call('/v1/boxes/box_a/things?dryRun=true', { name: 'x' });
    expect(added.status).toBe(201);
    expect(await added.json()).toEqual({ box: 'box_a', dryRun: true, name: 'x' });
    expect((await call('/v1/things/t1/answer')).status).toBe(200);
  });

  it('refuses a body and a query that do not match the schemas, naming the field', async () => {
    const badBody = await call('/v1/boxes/box_a/things', { name: '' });
    expect(badBody.status).toBe(400);
    const bodyError = ((await badBody.json()) as { error: { code: string; message: string } }).error;
    expect(bodyError.code).toBe(ErrorCode.ValidationFailed);
    expect(bodyError.message).toMatch(/^Invalid body: body\.name: /);
    const badQuery = await call('/v1/boxes/box_a/things?dryRun=maybe', { name: 'x' });
    expect(((await badQuery.json()) as { error: { message: string } }).error.message).toMatch(/^Invalid query: query\.dryRun: /);
  });

  it('reports the same error as inline pipes did when the path, the query and the body are all wrong', async () => {
    const viaRoute = await call('/v1/boxes/BOX/things?dryRun=maybe', { name: '' });
    const inline = await call('/v1/inline/BOX/things?dryRun=maybe', { name: '' });
    expect(viaRoute.status).toBe(400);
    expect(await viaRoute.json()).toEqual(await inline.json());
  });

  it('refuses at startup a handler that takes no body for a route with a body schema', () => {
    expect(() => {
      class Broken {
        @Route(addThing)
        add() {
          return undefined;
        }
      }
      return Broken;
    }).toThrow('POST /v1/boxes/:box/things: the route has a schema but add takes no @Body() to validate it on');
  });
});
