import { parse as parseShellWords } from 'shell-quote';

/**
 * `issue="the login page crashes" branch=main` → `{ issue: 'the login page crashes', branch: 'main' }`,
 * split the way a shell splits words (quotes keep spaces), for `/chain` in chat.
 */
export function parseInputs(text: string): Record<string, string> {
  return inputsFromWords(parseShellWords(text).filter((word): word is string => typeof word === 'string'));
}

/**
 * `key=value` words (as the shell already split them for `weft chain`). A word without `=` is
 * kept as an input with an empty value, so the gateway's answer names it as unknown.
 */
export function inputsFromWords(words: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    if (at < 0) inputs[word] = '';
    else inputs[word.slice(0, at)] = word.slice(at + 1);
  }
  return inputs;
}
