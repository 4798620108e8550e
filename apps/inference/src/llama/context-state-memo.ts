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

/**
 * The worker renders a prompt to fit it and count its cached tokens, then LlamaChat renders the
 * same history again before evaluating it. Rendering a chat template (Jinja, in node-llama-cpp's
 * native renderer) took ~20 ms for a two-message prompt on a CPU, on the event loop, where it
 * holds up every other sequence's next token: at 8 concurrent replies the second render cost
 * the worker a few percent of its tokens. This keeps the wrapper's last renders by content
 * (history, functions object, documentFunctionParams), so the second is a lookup. The result is
 * shared, as node-llama-cpp only reads it. Patches this wrapper instance only.
 */
export function memoizeContextState(wrapper: ChatWrapper): ChatWrapper {
  const render = wrapper.generateContextState.bind(wrapper);
  const cache = new Map<string, ContextState>();
  wrapper.generateContextState = (options) => {
    const key = keyOf(options);
    const hit = cache.get(key);
    if (hit) {
      cache.delete(key);
      cache.set(key, hit);
      return hit;
    }
    const state = render(options);
    cache.set(key, state);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return state;
  };
  return wrapper;
}
