import { anthropicBase, type ConnectTarget, openAiBase } from './connect-target';

/** `weft connect sdk`: the two SDKs' clients for this Weft, the key read from WEFT_API_KEY. */
export function sdkSnippet(t: ConnectTarget): string {
  return `# export WEFT_API_KEY=<your Weft key>

import OpenAI from 'openai';
const openai = new OpenAI({ baseURL: '${openAiBase(t)}', apiKey: process.env.WEFT_API_KEY });
const chat = await openai.chat.completions.create({ model: '${t.model}', max_tokens: ${t.replyTokens}, messages: [{ role: 'user', content: 'Hello' }] });

import Anthropic from '@anthropic-ai/sdk';
const anthropic = new Anthropic({ baseURL: '${anthropicBase(t)}', apiKey: process.env.WEFT_API_KEY });
const message = await anthropic.messages.create({ model: '${t.model}', max_tokens: ${t.replyTokens}, messages: [{ role: 'user', content: 'Hello' }] });

# ${t.model}: a context window of ${t.contextWindow} tokens; the reply budget above leaves three quarters of it to the prompt.
`;
}
