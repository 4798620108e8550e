import type { ChatMessage } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { PromptChanges } from './prompt-changes';

const system: ChatMessage = { role: 'system', content: 'You are an agent.' };
const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

describe('PromptChanges', () => {
  it('says nothing of a first request or of one that only appends', () => {
    const changes = new PromptChanges();
    expect(changes.record('c', [system, user('a')])).toBeUndefined();
    expect(changes.record('c', [system, user('a'), assistant('b'), user('c')])).toBeUndefined();
  });

  it('names the first message a client rewrote, by index and role', () => {
    const changes = new PromptChanges();
    changes.record('c', [system, user('a'), assistant('b'), user('c')]);
    expect(changes.record('c', [system, user('a (edited)'), assistant('b'), user('c'), assistant('d')])).toEqual({
      firstChanged: 1,
      role: 'user',
      previousMessages: 4,
      messages: 5,
    });
  });

  it('keeps conversations apart and forgets the oldest past its capacity', () => {
    const changes = new PromptChanges(1);
    changes.record('one', [system, user('a')]);
    changes.record('two', [user('x')]);
    expect(changes.record('one', [user('different')])).toBeUndefined();
    expect(changes.record('one', [user('changed again')])).toMatchObject({ firstChanged: 0 });
  });
});
