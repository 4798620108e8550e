import type { ChatMessage } from '@weft/contracts';
import type { MessagesRequest } from './messages-schema';

/**
 * Claude Code's first system block, `x-anthropic-billing-header: cc_version=2.1.332.0b8; …`:
 * request metadata for Anthropic's billing, not an instruction, and different in every request.
 * Left in, it would open the prompt and no request would reuse the previous one's KV cache.
 */
const BILLING_HEADER_PREFIX = 'x-anthropic-billing-header:';

export function isBillingHeader(text: string): boolean {
  return text.trimStart().startsWith(BILLING_HEADER_PREFIX);
}

/** The top-level `system`, as the prompt's leading system message; text blocks joined by a blank line. */
export function systemMessages(system: MessagesRequest['system']): ChatMessage[] {
  if (system === undefined) return [];
  const text =
    typeof system === 'string'
      ? system
      : system
          .map((block) => block.text)
          .filter((text) => !isBillingHeader(text))
          .join('\n\n');
  return text === '' ? [] : [{ role: 'system', content: text }];
}
