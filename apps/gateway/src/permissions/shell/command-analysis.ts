import type { BashParser, ShellNode } from './bash-parser';
import { joinContinuationLines } from './line-continuations';
import { programEffects } from './program-hazards';
import { basename, decodeAnsiC, expandBraces, hasBraceExpansion, unescapeDoubleQuoted, unescapeUnquoted } from './words';

/** One simple command that may run; `null` stands for a word whose value is only known at run time. */
export interface SimpleCommand {
  words: Array<string | null>;
}

/**
 * What a command line would do, as far as it can be known without running it.
 * `risks` name every construct that a rule cannot vouch for (the line must be asked about);
 * `tokenRuns` over-approximate every word that could end up executed, for the deny scan.
 */
export interface CommandAnalysis {
  commands: SimpleCommand[];
  risks: string[];
  tokenRuns: string[][];
}

export const MAX_COMMAND_CHARS = 10_000;
export const MAX_SIMPLE_COMMANDS = 50;
/** `bash -c "bash -c '…'"` is followed this many levels deep, then asked about. */
export const MAX_NESTING = 3;

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);
const SHELL_STATE = new Set(['source', '.', 'alias', 'trap', 'set', 'shopt', 'export', 'declare', 'typeset', 'local', 'readonly', 'unset', 'enable', 'hash']);

/** Characters that bash and the parser may read differently: control, format and odd space characters. */
const SUSPICIOUS_CHARS = /(?![ \t\n])[\p{Cc}\p{Cf}\p{Z}]/u;
const TOKEN_SEPARATORS = /[\s\p{C}\p{Z};&|()<>`$'"{}[\],=\\*?!#]+/u;

export function analyzeCommand(parser: BashParser, source: string): CommandAnalysis {
  const analyzer = new Analyzer(parser, 0);
  analyzer.run(source);
  return analyzer.result();
}

class Analyzer {
  private readonly commands: SimpleCommand[] = [];
  private readonly risks = new Set<string>();
  private readonly tokenRuns: string[][] = [];

  constructor(
    private readonly parser: BashParser,
    private readonly depth: number,
  ) {}

  result(): CommandAnalysis {
    const risks = [...this.risks];
    if (this.commands.length === 0) risks.push('there is no command to run');
    if (this.commands.length > MAX_SIMPLE_COMMANDS) risks.push(`more than ${MAX_SIMPLE_COMMANDS} commands in one line`);
    return { commands: this.commands, risks, tokenRuns: this.tokenRuns };
  }

  run(written: string): void {
    this.tokenRuns.push(...rawTokenRuns(written));
    if (written.length > MAX_COMMAND_CHARS) {
      this.risk(`longer than ${MAX_COMMAND_CHARS} characters`);
      return;
    }
    // The parser does not join continued lines the way bash does; hand it what bash reads.
    const source = joinContinuationLines(written);
    if (source !== written) this.tokenRuns.push(...rawTokenRuns(source));
    if (SUSPICIOUS_CHARS.test(source)) this.risk('control or invisible characters (a carriage return, a zero-width space…)');
    const { root, hasErrors } = this.parser.parse(source);
    if (hasErrors) this.risk('the command cannot be parsed');
    this.visit(root);
  }

  private risk(reason: string): void {
    this.risks.add(reason);
  }

  private visit(node: ShellNode): void {
    if (node.broken) this.risk('the command cannot be parsed');
    if (!node.named) return;
    switch (node.type) {
      case 'program':
      case 'list':
      case 'subshell':
      case 'compound_statement':
        // A background job outlives the call: its output and its end are no longer the tool's.
        if (node.children.some((child) => !child.named && child.type === '&')) this.risk('runs a command in the background (&)');
        return this.visitChildren(node);
      case 'pipeline':
      case 'negated_command':
      case 'ERROR':
        return this.visitChildren(node);
      case 'comment':
        return;
      case 'redirected_statement':
        for (const child of node.children) {
          if (child.field === 'redirect') this.redirect(child);
          else this.visit(child);
        }
        return;
      case 'command':
        return this.command(node);
      case 'variable_assignment':
      case 'variable_assignments':
        this.risk('sets a shell variable');
        return this.visitChildren(node);
      case 'declaration_command':
      case 'unset_command':
        this.risk(`changes the shell's state (${node.children[0]?.text ?? node.type})`);
        return this.visitChildren(node);
      case 'if_statement':
      case 'while_statement':
      case 'for_statement':
      case 'c_style_for_statement':
      case 'case_statement':
      case 'function_definition':
        this.risk(`shell control flow (${node.type.replace(/_statement|_definition/, '')})`);
        return this.visitChildren(node);
      case 'word':
      case 'number':
      case 'string':
      case 'raw_string':
      case 'ansi_c_string':
      case 'translated_string':
      case 'concatenation':
      case 'simple_expansion':
      case 'expansion':
      case 'command_substitution':
      case 'process_substitution':
      case 'arithmetic_expansion':
        this.word(node);
        return;
      case 'file_redirect':
      case 'heredoc_redirect':
      case 'herestring_redirect':
        return this.redirect(node);
      default:
        this.risk(`unsupported shell syntax (${node.type})`);
        return this.visitChildren(node);
    }
  }

  private visitChildren(node: ShellNode): void {
    for (const child of node.children) this.visit(child);
  }

  private command(node: ShellNode): void {
    const words: Array<string | null> = [];
    for (const child of node.children) {
      if (child.type === 'variable_assignment') {
        this.risk('an environment assignment before the command (FOO=…)');
        this.visitChildren(child);
      } else if (child.field === 'name') {
        words.push(this.concat(child.children.filter((c) => c.named)));
      } else if (child.field === 'argument') {
        words.push(this.word(child));
      } else if (child.field === 'redirect' || child.type.endsWith('_redirect')) {
        this.redirect(child);
      } else {
        this.visit(child);
      }
    }
    if (words.length > 0) this.simpleCommand(words);
  }

  private simpleCommand(words: Array<string | null>): void {
    const command = { words };
    this.commands.push(command);
    this.tokenRuns.push(words.filter((w): w is string => w !== null));
    this.inspect(command);
  }

  /** Commands that run other commands, or change how later ones run. */
  private inspect({ words }: SimpleCommand): void {
    const [name, ...args] = words;
    if (name === null || name === undefined) {
      this.risk('the command name is only known at run time');
      return;
    }
    if (/[*?[]/.test(name)) this.risk('a glob in the command name');
    const program = basename(name);
    if (SHELLS.has(program)) return this.shell(program, args);
    if (program === 'eval') {
      this.risk('eval');
      if (args.every((a): a is string => a !== null)) this.nested(args.join(' '));
      return;
    }
    if (SHELL_STATE.has(program)) this.risk(`${program} changes the shell's state or runs a script`);
    const effects = programEffects(program, args);
    for (const risk of effects.risks) this.risk(risk);
    for (const script of effects.scripts) this.nested(script);
    for (const inner of effects.commands) if (inner.length > 0) this.simpleCommand(inner);
  }

  private shell(program: string, args: Array<string | null>): void {
    let commandString = false;
    for (const arg of args) {
      if (arg === null) {
        this.risk(`${program} with arguments only known at run time`);
        return;
      }
      if (arg.startsWith('-') && arg !== '-' && arg !== '--') {
        if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg)) commandString = true;
        continue;
      }
      if (!commandString) break;
      this.risk(`${program} -c runs a command string`);
      this.nested(arg);
      return;
    }
    this.risk(`${program} runs a script or reads commands from its input`);
  }

  private nested(script: string): void {
    if (this.depth + 1 >= MAX_NESTING) {
      this.risk('commands nested too deeply to follow');
      this.tokenRuns.push(...rawTokenRuns(script));
      return;
    }
    const inner = new Analyzer(this.parser, this.depth + 1);
    inner.run(script);
    const result = inner.result();
    this.commands.push(...result.commands);
    for (const risk of result.risks) this.risk(risk);
    this.tokenRuns.push(...result.tokenRuns);
  }

  private redirect(node: ShellNode): void {
    switch (node.type) {
      case 'file_redirect': {
        const op = node.children.find((c) => !c.named)?.text ?? '';
        const destination = node.children.filter((c) => c.field === 'destination');
        const value = this.concat(destination);
        const fdDup = (op === '>&' || op === '<&') && (destination[0]?.type === 'number' || value === '-');
        if (!fdDup && value !== '/dev/null') {
          this.risk(`a redirection to a file (${op} ${destination.map((d) => d.text).join('')})`);
        }
        return;
      }
      case 'heredoc_redirect':
        for (const child of node.children) {
          if (child.type === 'heredoc_body') {
            for (const part of child.children) if (part.named && part.type !== 'heredoc_content') this.word(part);
          } else if (child.named && child.type !== 'heredoc_start' && child.type !== 'heredoc_end') {
            this.visit(child);
          }
        }
        return;
      case 'herestring_redirect':
        for (const child of node.children) if (child.named) this.word(child);
        return;
      default:
        this.risk(`unsupported redirection (${node.type})`);
        this.visitChildren(node);
    }
  }

  private concat(parts: ShellNode[]): string | null {
    const values = parts.map((part) => this.word(part));
    return values.every((v): v is string => v !== null) ? values.join('') : null;
  }

  /** A word's value after quote removal, or null when it depends on an expansion. */
  private word(node: ShellNode): string | null {
    switch (node.type) {
      case 'word': {
        const value = unescapeUnquoted(node.text);
        if (hasBraceExpansion(node.text)) this.braces(value);
        return value;
      }
      case 'number':
        return node.text;
      case 'raw_string':
        return node.text.slice(1, -1);
      case 'string':
        return this.doubleQuoted(node);
      case 'translated_string':
        this.risk('locale quoting ($"…")');
        return this.doubleQuoted(node.children.find((c) => c.type === 'string') ?? node);
      case 'ansi_c_string': {
        this.risk("ANSI-C quoting ($'…')");
        const value = decodeAnsiC(node.text.slice(2, -1));
        this.tokenRuns.push(splitTokens(value));
        return value;
      }
      case 'concatenation': {
        const unquoted = node.children.map((c) => (c.type === 'word' ? c.text : '\0')).join('');
        const value = this.concat(node.children.filter((c) => c.named));
        if (hasBraceExpansion(unquoted)) this.braces(value ?? unquoted);
        return value;
      }
      case 'simple_expansion':
      case 'expansion':
        this.risk('a variable expansion ($…)');
        for (const child of node.children) if (child.named && !child.type.endsWith('variable_name')) this.visit(child);
        return null;
      case 'command_substitution':
        this.risk(node.text.startsWith('`') ? 'backticks (`…`)' : 'command substitution ($(…))');
        this.visitChildren(node);
        return null;
      case 'process_substitution':
        this.risk('process substitution (<(…) or >(…))');
        this.visitChildren(node);
        return null;
      case 'arithmetic_expansion':
        this.risk('arithmetic expansion ($((…)))');
        this.visitChildren(node);
        return null;
      default:
        this.risk(`unsupported word syntax (${node.type})`);
        this.visitChildren(node);
        return null;
    }
  }

  private doubleQuoted(node: ShellNode): string | null {
    let value = '';
    let known = true;
    for (const child of node.children) {
      if (!child.named) continue;
      if (child.type === 'string_content') value += unescapeDoubleQuoted(child.text);
      else {
        this.word(child);
        known = false;
      }
    }
    return known ? value : null;
  }

  private braces(value: string): void {
    this.risk('brace expansion ({a,b})');
    for (const expanded of expandBraces(value)) this.tokenRuns.push(splitTokens(expanded));
  }
}

function splitTokens(text: string): string[] {
  return text.split(TOKEN_SEPARATORS).filter((t) => t !== '');
}

/**
 * Words of the raw text, cut at every shell operator and quote, once as written and once with
 * quotes and backslashes removed, so that `c'u'rl` and `c\url` still read `curl`.
 */
function rawTokenRuns(source: string): string[][] {
  const runs = [splitTokens(source)];
  const dequoted = source
    .split(/[\s\p{C}\p{Z};&|()<>`]+/u)
    .map((chunk) => chunk.replace(/['"\\]/g, ''))
    .filter((chunk) => chunk !== '');
  runs.push(dequoted.flatMap(splitTokens));
  for (const chunk of dequoted) {
    if (chunk.includes('{')) for (const expanded of expandBraces(chunk)) runs.push(splitTokens(expanded));
  }
  return runs;
}
