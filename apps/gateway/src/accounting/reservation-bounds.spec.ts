import type { GenerateRequest } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { embeddingReservation, sandboxReservationMs, tokenReservation } from './reservation-bounds';

const request = (over: Partial<GenerateRequest> = {}): GenerateRequest => ({ model: 'm', messages: [{ role: 'user', content: 'héllo' }], ...over });
const timeouts = { shortRunMs: 120_000, longRunThresholdMs: 60_000, longRunMs: 600_000 };

describe('embeddingReservation', () => {
  it("counts each input's UTF-8 bytes and special tokens, at most the model's context an input", () => {
    // 'héllo' is 6 bytes, and 4 special tokens an input.
    expect(embeddingReservation(['héllo', 'ab'], 4096)).toBe(6 + 4 + 2 + 4);
    expect(embeddingReservation(['x'.repeat(5000), 'ab'], 4096)).toBe(4096 + 6);
    expect(embeddingReservation(['x'.repeat(5000)], undefined)).toBe(5004);
  });
});

describe('tokenReservation', () => {
  it('counts every UTF-8 byte of the prompt as a token, plus the template, plus max_tokens', () => {
    // 'héllo' is 6 bytes; 8 for the message, 32 for the template.
    expect(tokenReservation(request({ maxTokens: 100 }), 10_000)).toBe(6 + 8 + 32 + 100);
  });

  it('counts tool definitions and earlier tool calls', () => {
    const tools = [{ name: 'read', description: 'reads', parameters: { type: 'object' } }];
    const call = { role: 'assistant' as const, content: '', toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] };
    const plain = tokenReservation(request({ maxTokens: 1 }), undefined);
    const withTools = tokenReservation(request({ maxTokens: 1, tools, messages: [...request().messages, call] }), undefined);
    expect(withTools - plain).toBe(Buffer.byteLength(JSON.stringify(tools)) + 8 + Buffer.byteLength(JSON.stringify(call.toolCalls)));
  });

  it("takes the model's context as the reply bound when max_tokens is absent, and never reserves more than the context", () => {
    expect(tokenReservation(request(), 4096)).toBe(4096);
    expect(tokenReservation(request({ maxTokens: 10, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }), 4096)).toBe(4096);
  });

  it('falls back to the longest reply a request may ask for when the context is unknown', () => {
    expect(tokenReservation(request(), undefined)).toBe(6 + 8 + 32 + 32_768);
  });
});

describe('sandboxReservationMs', () => {
  it("reserves a short command's own timeout, or what the gateway waits for it", () => {
    expect(sandboxReservationMs({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'ls', timeoutMs: 5_000 }, timeouts)).toBe(5_000);
    expect(sandboxReservationMs({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'ls' }, timeouts)).toBe(120_000);
  });

  it('reserves at least the long-run timeout for an install or a test suite', () => {
    expect(sandboxReservationMs({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'npm install' }, timeouts)).toBe(600_000);
    expect(sandboxReservationMs({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'sleep 100', timeoutMs: 90_000 }, timeouts)).toBe(600_000);
  });
});
