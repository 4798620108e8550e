import { createRequire } from 'node:module';
import { Language, type Node, Parser } from 'web-tree-sitter';

/** A node of a parsed command, free of tree-sitter types: what the analysis walks. */
export interface ShellNode {
  type: string;
  /** Named grammar node (`command`, `word`) rather than a token (`&&`, `$(`). */
  named: boolean;
  /** The role in its parent (`name`, `argument`, `redirect`, `destination`), when the grammar gives one. */
  field: string | null;
  text: string;
  /** An ERROR node or a token the parser had to invent: the input is not valid bash. */
  broken: boolean;
  children: ShellNode[];
}

export interface ShellParse {
  root: ShellNode;
  hasErrors: boolean;
}

/**
 * The bash grammar of tree-sitter, compiled to WebAssembly (shipped in the `tree-sitter-bash`
 * package), loaded once per process. tree-sitter never throws on bad input: it marks the broken
 * parts, which the analysis treats as unparseable.
 */
export class BashParser {
  private static loading?: Promise<BashParser>;

  private constructor(private readonly parser: Parser) {}

  static load(): Promise<BashParser> {
    BashParser.loading ??= (async () => {
      await Parser.init();
      const wasm = createRequire(__filename).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
      const parser = new Parser();
      parser.setLanguage(await Language.load(wasm));
      return new BashParser(parser);
    })();
    return BashParser.loading;
  }

  parse(source: string): ShellParse {
    const tree = this.parser.parse(source);
    if (!tree) return { root: brokenRoot(source), hasErrors: true };
    try {
      return { root: convert(tree.rootNode, null), hasErrors: tree.rootNode.hasError };
    } finally {
      tree.delete();
    }
  }
}

function convert(node: Node, field: string | null): ShellNode {
  const children: ShellNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child) children.push(convert(child, node.fieldNameForChild(i)));
  }
  return {
    type: node.type,
    named: node.isNamed,
    field,
    text: node.text,
    broken: node.isError || node.isMissing,
    children,
  };
}

function brokenRoot(source: string): ShellNode {
  return { type: 'ERROR', named: true, field: null, text: source, broken: true, children: [] };
}
