import type { ChatHistoryItem } from 'node-llama-cpp';
import { renderContextState } from './context-state-memo';
import type { ChatWrapper } from './llama-runtime';

/** How a folded system message reads in a user turn: node-llama-cpp's own format for templates without one. */
const FOLDED_SYSTEM = (text: string) => `### System message\n\n${text}\n\n----`;

/**
 * Whether the chat wrapper renders a system message that follows a user turn where it stands,
 * without changing what comes before it. ChatML, Llama 3, Qwen and most built-in formats do.
 * DeepSeek's hoists it to the top, Mistral's moves every system text into the last user turn, and
 * a Jinja template that refuses one makes node-llama-cpp turn every system message, the leading
 * one too, into user text: each would reshape the prompt's opening and its cached prefix.
 */
export function holdsMidConversationSystem(wrapper: ChatWrapper): boolean {
  const opening: ChatHistoryItem[] = [
    { type: 'system', text: 'PROBE_SYSTEM_FIRST' },
    { type: 'user', text: 'PROBE_USER' },
  ];
  const render = (items: ChatHistoryItem[]) => {
    try {
      return renderContextState(wrapper, { chatHistory: [...items, { type: 'model', response: [] }] }).contextText.toString();
    } catch {
      return undefined; // A template that throws on the probe holds nothing.
    }
  };
  const plain = render(opening);
  const withMid = render([...opening, { type: 'system', text: 'PROBE_SYSTEM_LATER' }]);
  if (plain === undefined || withMid === undefined) return false;
  const upToUser = plain.slice(0, plain.indexOf('PROBE_USER') + 'PROBE_USER'.length);
  return withMid.startsWith(upToUser) && withMid.indexOf('PROBE_SYSTEM_LATER') > upToUser.length;
}

/**
 * For a wrapper that cannot hold them: each system message after the opening ones becomes text
 * of the user turn beside it (the next one, else the one before, else a user turn of its own),
 * so the opening renders as it always does and the message still reads where it was sent.
 */
export function foldMidConversationSystem(history: readonly ChatHistoryItem[]): ChatHistoryItem[] {
  const firstOther = history.findIndex((item) => item.type !== 'system');
  if (firstOther < 0) return [...history];
  const out: ChatHistoryItem[] = history.slice(0, firstOther);
  let pending: string[] = [];
  for (const item of history.slice(firstOther)) {
    if (item.type === 'system') {
      pending.push(FOLDED_SYSTEM(typeof item.text === 'string' ? item.text : JSON.stringify(item.text)));
      continue;
    }
    if (item.type === 'user' && pending.length > 0) {
      out.push({ type: 'user', text: [...pending, item.text].join('\n\n') });
      pending = [];
      continue;
    }
    if (pending.length > 0) {
      appendToUserTurn(out, pending);
      pending = [];
    }
    out.push(item);
  }
  if (pending.length > 0) appendToUserTurn(out, pending);
  return out;
}

/** Appends to the last item when it is a user turn, else adds one. */
function appendToUserTurn(out: ChatHistoryItem[], texts: string[]): void {
  const last = out.at(-1);
  if (last?.type === 'user') out[out.length - 1] = { type: 'user', text: [last.text, ...texts].join('\n\n') };
  else out.push({ type: 'user', text: texts.join('\n\n') });
}
