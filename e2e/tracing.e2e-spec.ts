import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create as createTar } from 'tar';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReceivedSpan } from '../test/support/otlp-receiver';
import { answerPermissions, call, followTurn, newUserKey } from './support/api';
import { gatewayUrl } from './support/stack';
import { newTraceparent, waitForTrace } from './support/traces';

const SERVICES = ['weft-gateway', 'weft-inference', 'weft-tools', 'weft-sandbox'];
const SERVER = 2;

/** A message posted the way a traced client (or a proxy in front of the gateway) posts it. */
async function postTraced(key: string, sessionId: string, content: string, traceparent: string): Promise<{ status: number; turnId: string }> {
  const res = await fetch(`${gatewayUrl}/v1/sessions/${sessionId}/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', traceparent },
    body: JSON.stringify({ content }),
  });
  return { status: res.status, turnId: ((await res.json()) as { turnId: string }).turnId };
}

async function workspaceWithHello(): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-trace-'));
  writeFileSync(join(dir, 'hello.txt'), 'hello from a traced turn\n');
  const chunks: Buffer[] = [];
  for await (const chunk of createTar({ gzip: true, cwd: dir }, ['hello.txt'])) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

const hasEveryService = (spans: ReceivedSpan[]) => SERVICES.every((service) => spans.some((s) => s.service === service));

describe('one turn through the compose stack is one trace (OTLP to the e2e tier’s receiver)', () => {
  let key: string;
  let workspaceId: string;

  beforeAll(async () => {
    key = await newUserKey(`tracy-${Date.now().toString(36)}`);
    const workspace = await call<{ id: string }>('POST', '/v1/workspaces', key, await workspaceWithHello(), 'application/gzip');
    expect(workspace.status).toBe(201);
    workspaceId = workspace.body.id;
  });

  it('carries the caller’s trace from the gateway through the queue into inference, tools and sandbox', async () => {
    const session = await call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId, model: 'scripted/read-write-run' });
    expect(session.status).toBe(201);
    const trace = newTraceparent();
    const posted = await postTraced(key, session.body.id, 'Do the three things.', trace.traceparent);
    expect(posted.status).toBe(202);
    const permissions = answerPermissions(key, session.body.id, 'allow_once');
    const events = await followTurn(key, session.body.id, posted.turnId, undefined, permissions.onEvent);
    await Promise.all(permissions.answered);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId: posted.turnId });

    const spans = await waitForTrace(trace.traceId, (s) => hasEveryService(s) && s.filter((x) => x.name.startsWith('weft.sandbox.')).length > 0);
    const summary = spans.map((s) => `${s.service} ${s.name}`).join('\n');
    expect(new Set(spans.map((s) => s.service)), summary).toEqual(new Set(SERVICES));

    // The gateway's request span is the caller's child; the turn's run hangs under it.
    const request = spans.find((s) => s.service === 'weft-gateway' && s.kind === SERVER);
    expect(request, summary).toMatchObject({ parentSpanId: trace.spanId, name: 'POST /v1/sessions/:id/messages' });
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const runs = spans.filter((s) => s.name === 'turn.run');
    expect(runs.length, summary).toBeGreaterThan(0);
    expect(runs.every((r) => r.parentSpanId === request?.spanId)).toBe(true);
    expect(spans.some((s) => s.name === 'turn.queued' && s.parentSpanId === request?.spanId), summary).toBe(true);

    // Each model step is a gateway span with token counts, and inference's span is its child.
    const steps = spans.filter((s) => s.name === 'chat scripted/read-write-run');
    expect(steps.length, summary).toBe(4);
    expect(steps.every((s) => typeof s.attributes['gen_ai.usage.output_tokens'] === 'number')).toBe(true);
    const generations = spans.filter((s) => s.service === 'weft-inference');
    expect(generations.length, summary).toBeGreaterThanOrEqual(4);
    expect(generations.every((g) => byId.get(g.parentSpanId)?.name.startsWith('chat '))).toBe(true);

    // Each tool call is a span, and the worker that ran it has its span under it (the tools
    // worker also serves the turn's own reads, such as instruction files, under turn.run).
    const tools = spans.filter((s) => s.name.startsWith('tool '));
    expect(tools.map((t) => t.name).sort(), summary).toEqual(['tool execute_code', 'tool read_file', 'tool write_file']);
    const servedUnder = (tool: string) => spans.filter((s) => s.kind === SERVER && byId.get(s.parentSpanId)?.name === tool).map((s) => `${s.service} ${s.name}`);
    expect(servedUnder('tool read_file'), summary).toContain('weft-tools weft.tools.v1.call');
    expect(servedUnder('tool write_file'), summary).toContain('weft-tools weft.tools.v1.call');
    expect(servedUnder('tool execute_code'), summary).toEqual(['weft-sandbox weft.sandbox.v1.exec']);
    // Token counts, never what was said.
    expect(JSON.stringify(spans)).not.toContain('Do the three things');
  });
});
