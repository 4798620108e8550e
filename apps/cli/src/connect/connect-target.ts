/** What `weft connect` writes into a client: this Weft, a key and one model with its limits. */
export interface ConnectTarget {
  /** The gateway, without a trailing slash. */
  readonly url: string;
  readonly key: string;
  readonly model: string;
  /** The model's context window in tokens, from the gateway's model list. */
  readonly contextWindow: number;
  /** The reply budget the client is given: see `replyBudget`. */
  readonly replyTokens: number;
}

/**
 * A quarter of the window at most (and never more than the model's output limit): an agent
 * reserves its reply budget out of the window before it compacts, so a budget as large as a small
 * model's window would leave no room for the conversation.
 */
export function replyBudget(contextWindow: number, maxOutputTokens: number): number {
  return Math.max(1, Math.min(maxOutputTokens, Math.floor(contextWindow / 4)));
}

export const anthropicBase = (t: ConnectTarget) => `${t.url}/anthropic`;
export const openAiBase = (t: ConnectTarget) => `${t.url}/openai/v1`;
export const geminiBase = (t: ConnectTarget) => `${t.url}/gemini`;
