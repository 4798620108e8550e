import { ChatMLChatWrapper, DeepSeekChatWrapper, JinjaTemplateChatWrapper, MistralChatWrapper, type ChatHistoryItem } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { foldMidConversationSystem, holdsMidConversationSystem } from './mid-system';

/** A ChatML template that, like several published ones, allows a system message only first. */
const SYSTEM_FIRST_ONLY_TEMPLATE =
  "{% for message in messages %}{% if message['role'] == 'system' and not loop.first %}{{ raise_exception('System message must be at the beginning.') }}{% endif %}" +
  "<|im_start|>{{ message['role'] }}\n{{ message['content'] }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";

describe('holdsMidConversationSystem', () => {
  it('is true for templates that render a later system message in place (ChatML)', () => {
    expect(holdsMidConversationSystem(new ChatMLChatWrapper())).toBe(true);
  });

  it('is false where it would move the message or rewrite the opening (DeepSeek, Mistral, a Jinja template that refuses it)', () => {
    expect(holdsMidConversationSystem(new DeepSeekChatWrapper())).toBe(false);
    expect(holdsMidConversationSystem(new MistralChatWrapper())).toBe(false);
    expect(holdsMidConversationSystem(new JinjaTemplateChatWrapper({ template: SYSTEM_FIRST_ONLY_TEMPLATE }))).toBe(false);
  });
});

describe('foldMidConversationSystem', () => {
  const folded = (text: string) => `### System message\n\n${text}\n\n----`;

  it('moves a later system message into the next user turn, the one before when none follows', () => {
    const history: ChatHistoryItem[] = [
      { type: 'system', text: 'top' },
      { type: 'user', text: 'a' },
      { type: 'system', text: 'between' },
      { type: 'model', response: ['b'] },
      { type: 'system', text: 'env' },
      { type: 'user', text: 'c' },
      { type: 'system', text: 'last' },
    ];
    expect(foldMidConversationSystem(history)).toEqual([
      { type: 'system', text: 'top' },
      { type: 'user', text: `a\n\n${folded('between')}` },
      { type: 'model', response: ['b'] },
      { type: 'user', text: `${folded('env')}\n\nc\n\n${folded('last')}` },
    ]);
  });

  it('leaves the opening system messages and a conversation without later ones alone', () => {
    const history: ChatHistoryItem[] = [
      { type: 'system', text: 'one' },
      { type: 'system', text: 'two' },
      { type: 'user', text: 'hi' },
    ];
    expect(foldMidConversationSystem(history)).toEqual(history);
  });

  it('renders through a template that refuses a later system message with the opening unchanged', () => {
    const wrapper = new JinjaTemplateChatWrapper({ template: SYSTEM_FIRST_ONLY_TEMPLATE });
    const render = (history: ChatHistoryItem[]) => wrapper.generateContextState({ chatHistory: [...history, { type: 'model', response: [] }] }).contextText.toString();
    const opening: ChatHistoryItem[] = [
      { type: 'system', text: 'You code.' },
      { type: 'user', text: 'say hi' },
    ];
    const text = render(foldMidConversationSystem([...opening, { type: 'system', text: '# Environment' }]));
    expect(text).toBe(`<|im_start|>system\nYou code.<|im_end|>\n<|im_start|>user\nsay hi\n\n${folded('# Environment')}<|im_end|>\n<|im_start|>assistant\n`);
    expect(text.startsWith(render(opening).split('say hi')[0] ?? '')).toBe(true);
  });
});
