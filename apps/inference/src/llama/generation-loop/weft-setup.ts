import type { ChatHistoryItem, ChatModelFunctions } from 'node-llama-cpp';
import { renderContextState } from '../context-state-memo';
import type { ChatWrapper, LlamaBackend, LlamaModel } from '../llama-runtime';
import { CallGrammars } from './call-grammars';
import { loopInternals, type LoopInternals } from './loop-internals';
import { StartText } from './start-text';
import { resolveCallTriggers } from './stop-triggers';
import type { ToolCalling } from './weft-loop';

type ContextState = ReturnType<ChatWrapper['generateContextState']>;

/** A request's render, as the worker made it. */
export interface RenderedPrompt {
  /** The history as rendered: ending in the model's turn. */
  rendered: ChatHistoryItem[];
  state: ContextState;
}

/**
 * What Weft's loop needs from one model's chat template beyond the prompt: its call syntax and
 * grammars for native tool calls, and its start text to leave out. Each answer is a reason
 * instead where the loop cannot do what LlamaChat would (LlamaChat then makes the reply).
 */
export class WeftSetup {
  /** node-llama-cpp's call grammars (loaded on the first request with tools). */
  private callGrammars?: Promise<{ internals: LoopInternals; grammars: CallGrammars }>;

  constructor(
    private readonly backend: LlamaBackend,
    private readonly model: LlamaModel,
    private readonly chatWrapper: ChatWrapper,
  ) {}

  /** The template's start text to leave out of a reply: undefined without any. */
  async startText(state: ContextState): Promise<StartText | string | undefined> {
    if (!state.ignoreStartText?.length) return undefined;
    const { StopGenerationDetector } = await loopInternals();
    const triggers = StopGenerationDetector.resolveStopTriggers(state.ignoreStartText, this.model.tokenizer);
    // LlamaChat matches a trigger with special tokens over the tokens too.
    if (triggers.some((trigger) => trigger.some((item) => typeof item !== 'string'))) return 'the start text to ignore has special tokens';
    const detector = new StopGenerationDetector();
    for (const trigger of triggers) detector.addStopTrigger(trigger);
    return new StartText(detector);
  }

  /** Native function calls with this template. */
  async toolCalling(prompt: RenderedPrompt, functions: ChatModelFunctions, onChunk: () => void): Promise<ToolCalling | string> {
    const settings = this.chatWrapper.settings.functions;
    if (!settings) return 'the chat template has no function call syntax';
    this.callGrammars ??= loopInternals().then((internals) => ({ internals, grammars: new CallGrammars(internals, this.backend.llama, this.chatWrapper) }));
    const { internals, grammars } = await this.callGrammars;
    const { LlamaText } = this.backend.lib;
    const triggers =
      prompt.state.detectFunctionCalls === false
        ? { texts: [], tokenSequences: [] }
        : resolveCallTriggers(
            settings,
            (text) => internals.StopGenerationDetector.resolveLlamaTextTrigger(text, this.model.tokenizer),
            (values) => LlamaText(values as Parameters<typeof LlamaText>),
          );
    if ('unsupported' in triggers) return triggers.unsupported;
    return {
      internals,
      llama: this.backend.llama,
      settings,
      functions,
      grammars,
      triggers,
      initiallyEngaged: prompt.state.functionCall?.initiallyEngaged === true,
      renderWithText: (text) =>
        renderContextState(this.chatWrapper, { chatHistory: withReplyText(prompt.rendered, text), availableFunctions: functions }).contextText.tokenize(
          this.model.tokenizer,
        ),
      onCallChunk: onChunk,
    };
  }
}

/** The history with the reply's text so far in its last model turn (LlamaChat's merge of a generated result). */
function withReplyText(history: ChatHistoryItem[], text: string): ChatHistoryItem[] {
  const last = history.at(-1);
  if (last?.type !== 'model' || text === '') return history;
  const response = [...last.response];
  const tail = response.at(-1);
  if (typeof tail === 'string') response[response.length - 1] = tail + text;
  else response.push(text);
  return [...history.slice(0, -1), { ...last, response }];
}
