import type { ToolDefinition } from '@weft/contracts';
import type { RawToolCall } from '../tool-calls/to-tool-calls';

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/** The system-prompt text that teaches a model without native tools the fallback call format. */
export function toolCallInstructions(tools: readonly ToolDefinition[]): string {
  const list = tools.map((t) => `- ${t.name}: ${t.description}\n  parameters (JSON Schema): ${JSON.stringify(t.parameters)}`).join('\n');
  return [
    'You can call tools. To call one, write exactly:',
    `${OPEN}{"name": "<tool name>", "arguments": {<arguments as JSON>}}${CLOSE}`,
    'One block per call; several blocks call several tools. Write nothing after your calls: their results come back in the next message.',
    'Tools:',
    list,
  ].join('\n');
}

/** How a tool call and its result are written back into a conversation for such a model. */
export function renderToolCall(name: string, args: Record<string, unknown>): string {
  return `${OPEN}${JSON.stringify({ name, arguments: args })}${CLOSE}`;
}

/** Splits a finished reply into its text and its `<tool_call>` blocks (unparseable ones become invalid calls). */
export function parseToolCallText(text: string): { text: string; calls: RawToolCall[] } {
  const calls: RawToolCall[] = [];
  let rest = '';
  let at = 0;
  for (;;) {
    const open = text.indexOf(OPEN, at);
    if (open < 0) break;
    const close = text.indexOf(CLOSE, open + OPEN.length);
    rest += text.slice(at, open);
    const body = text.slice(open + OPEN.length, close < 0 ? undefined : close);
    calls.push(parseCall(body));
    if (close < 0) {
      at = text.length;
      break;
    }
    at = close + CLOSE.length;
  }
  rest += text.slice(at);
  return { text: rest.trim(), calls };
}

function parseCall(body: string): RawToolCall {
  try {
    const parsed = JSON.parse(body) as { name?: unknown; arguments?: unknown };
    return { name: typeof parsed.name === 'string' ? parsed.name : '', arguments: parsed.arguments ?? {} };
  } catch {
    // Kept as a call to no tool, so the model is told its call was malformed.
    return { name: '(unparseable tool call)', arguments: { raw: body.slice(0, 200) } };
  }
}

/**
 * Passes streamed text through until a `<tool_call>` starts, holding back any tail that could be
 * the start of the tag: users see the prose, not the call syntax.
 */
export class ToolCallTextFilter {
  private pending = '';
  private inCall = false;

  constructor(private readonly emit: (text: string) => void) {}

  push(text: string): void {
    if (this.inCall) return;
    this.pending += text;
    const open = this.pending.indexOf(OPEN);
    if (open >= 0) {
      this.flush(this.pending.slice(0, open));
      this.pending = '';
      this.inCall = true;
      return;
    }
    let keep = 0;
    for (let n = Math.min(OPEN.length - 1, this.pending.length); n > 0; n--) {
      if (OPEN.startsWith(this.pending.slice(-n))) {
        keep = n;
        break;
      }
    }
    this.flush(this.pending.slice(0, this.pending.length - keep));
    this.pending = this.pending.slice(this.pending.length - keep);
  }

  end(): void {
    if (!this.inCall) this.flush(this.pending);
    this.pending = '';
  }

  private flush(text: string): void {
    if (text) this.emit(text);
  }
}
