import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestMicroservice } from '@nestjs/common';
import { toolsConfigSchema } from '@weft/config';
import { Routes } from '@weft/contracts';
import { type RpcClient, connectRpcClient } from '@weft/messaging';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startNats } from '../../../../test/support/containers';
import { startToolsWorker } from '../bootstrap';
import { freePort } from '../../../../test/support/free-port';

describe('tools worker metrics', () => {
  let nats: StartedService;
  let base: string;
  let worker: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };
  let port: number;

  beforeAll(async () => {
    nats = await startNats();
    base = await mkdtemp(join(tmpdir(), 'weft-tools-metrics-'));
    port = await freePort();
    const config = toolsConfigSchema.parse({ NATS_URL: nats.url, WORKSPACES_DIR: base, METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' });
    worker = await startToolsWorker(config, pino({ level: 'silent' }));
    rpc = await connectRpcClient(nats.url, 10_000);
  });

  afterAll(async () => {
    await rpc?.close();
    await worker?.close();
    await nats?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('counts tool calls by tool and outcome on METRICS_PORT, with durations and the workspaces volume', async () => {
    const workspaceId = `ws_metrics${Date.now()}`;
    await rpc.client.request(Routes.toolsCreateWorkspace, { workspaceId });
    const call = (tool: 'write_file' | 'read_file', args: Record<string, string>) =>
      rpc.client.request(Routes.toolsCall, { workspaceId, tool, arguments: args } as never);
    expect((await call('write_file', { path: 'a.txt', content: 'hi' })).isError).toBe(false);
    expect((await call('read_file', { path: 'missing.txt' })).isError).toBe(true);

    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('weft_tools_calls_total{tool="write_file",outcome="ok"} 1');
    expect(text).toMatch(/^weft_tools_calls_total\{tool="read_file",outcome="TOOLS\.[A-Z_]+"\} 1$/m);
    expect(text).toContain('weft_tools_call_duration_seconds_count{tool="write_file"} 1');
    expect(text).toContain('weft_tools_calls_in_flight{tool="read_file"} 0');
    expect(text).toMatch(/^weft_tools_volume_free_bytes\{volume="workspaces"\} [1-9]/m);
    expect(text).toMatch(/^weft_tools_process_process_cpu_seconds_total /m);
  });
});
