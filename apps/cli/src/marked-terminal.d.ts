// marked-terminal ships no types (and @types/marked-terminal pins a marked 11): the one function used.
declare module 'marked-terminal' {
  import type { MarkedExtension } from 'marked';

  export interface TerminalRendererOptions {
    /** Where paragraphs and tables wrap (with reflowText). */
    width?: number;
    reflowText?: boolean;
    /** `:smile:` into an emoji: off, code and paths use colons. */
    emoji?: boolean;
    /** Spaces a code block and a nested list are indented by. */
    tab?: number;
    showSectionPrefix?: boolean;
  }

  export function markedTerminal(options?: TerminalRendererOptions, highlightOptions?: Record<string, unknown>): MarkedExtension;
}
