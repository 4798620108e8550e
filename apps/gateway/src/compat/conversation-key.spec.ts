import { describe, expect, it } from 'vitest';
import { conversationKey, promptCacheSessionKey } from './conversation-key';

describe('session keys of the compatible APIs', () => {
  const opening = [
    { role: 'system' as const, content: 's' },
    { role: 'user' as const, content: 'first' },
  ];

  it('keep a conversation on its key when the client adds tools mid-conversation (tools are not hashed)', () => {
    // The signature takes no tools: agent clients add some later, and the cache must stay put.
    expect(conversationKey.length).toBe(3);
    expect(conversationKey('u1', 'm', [...opening, { role: 'assistant', content: 'a', toolCalls: [{ id: 'c', name: 't', arguments: {} }] }])).toBe(conversationKey('u1', 'm', opening));
  });

  it("derive a prompt_cache_key's session from user, model and key alone, never shared across users", () => {
    const key = promptCacheSessionKey('u1', 'm', 'codex-session');
    expect(promptCacheSessionKey('u1', 'm', 'codex-session')).toBe(key);
    expect(promptCacheSessionKey('u2', 'm', 'codex-session')).not.toBe(key);
    expect(promptCacheSessionKey('u1', 'other', 'codex-session')).not.toBe(key);
    expect(promptCacheSessionKey('u1', 'm', 'another')).not.toBe(key);
    expect(key).not.toBe(conversationKey('u1', 'm', [{ role: 'user', content: 'codex-session' }]));
    expect(key).toMatch(/^compat:[A-Za-z0-9_-]{32}$/);
  });
});
