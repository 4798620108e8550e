import type { ChatWrapper } from './llama-runtime';

type GenerateContextState = ChatWrapper['generateContextState'];
type ContextStateOptions = Parameters<GenerateContextState>[0];
type ContextState = ReturnType<GenerateContextState>;

/** Renders kept per wrapper: about one per sequence generating at once is all that repeats. */
const CACHE_SIZE = 16;

/** A number per functions object: the worker passes the same object to its render and to LlamaChat. */
const functionIds = new WeakMap<object, number>();
let nextFunctionId = 1;

function keyOf({ chatHistory, availableFunctions, documentFunctionParams }: ContextStateOptions): string {
  let functions = 0;
  if (availableFunctions) {
    functions = functionIds.get(availableFunctions) ?? nextFunctionId++;
    functionIds.set(availableFunctions, functions);
  }
  return `${functions}\u0000${String(documentFunctionParams)}\u0000${JSON.stringify(chatHistory)}`;
}

/** What a memoized wrapper keeps: its own render and its last renders by content. */
interface Memo {
  render: GenerateContextState;
  cache: Map<string, ContextState>;
}

const memos = new WeakMap<ChatWrapper, Memo>();

function remember(cache: Map<string, ContextState>, key: string, state: ContextState): ContextState {
  cache.delete(key);
  cache.set(key, state);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return state;
}

/**
 * The worker renders a prompt to fit it and count its cached tokens, then LlamaChat renders the
 * same history again before evaluating it. Rendering a chat template (Jinja, in node-llama-cpp's
 * native renderer) took ~20 ms for a two-message prompt on a CPU, on the event loop, where it
 * holds up every other sequence's next token: at 8 concurrent replies the second render cost
 * the worker a few percent of its tokens. This keeps the wrapper's last renders by content
 * (history, functions object, documentFunctionParams), so LlamaChat's render is a lookup. The
 * result is shared, as node-llama-cpp only reads it. Patches this wrapper instance only.
 */
export function memoizeContextState(wrapper: ChatWrapper): ChatWrapper {
  const render = wrapper.generateContextState.bind(wrapper);
  const cache = new Map<string, ContextState>();
  memos.set(wrapper, { render, cache });
  wrapper.generateContextState = (options) => {
    const key = keyOf(options);
    return remember(cache, key, cache.get(key) ?? render(options));
  };
  return wrapper;
}

/**
 * The worker's own render of a request: always computed, then kept for LlamaChat's. Were it a
 * lookup too, a request would start ~20 ms sooner when someone had sent the very same prompt
 * a moment before: a way for one user to confirm a guess at another's whole prompt. Computed,
 * its time never depends on what others sent, and LlamaChat's render always finds this one.
 */
export function renderContextState(wrapper: ChatWrapper, options: ContextStateOptions): ContextState {
  const memo = memos.get(wrapper);
  if (!memo) return wrapper.generateContextState(options);
  return remember(memo.cache, keyOf(options), memo.render(options));
}
