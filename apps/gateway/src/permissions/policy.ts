import { posix } from 'node:path';
import picomatch from 'picomatch';
import { type PermissionRule, type PermissionScope, type RuleLayer, RuleKind, parseRules } from '@weft/contracts';
import { parseMcpName } from '../mcp/mcp-tool-name';
import type { BashParser } from './shell/bash-parser';
import { type CommandAnalysis, type SimpleCommand, analyzeCommand } from './shell/command-analysis';
import { type PackageScripts, describeInvocation, scriptDigest, scriptInvocation } from './shell/package-scripts';
import { basename } from './shell/words';
import type { FileAction, PermissionSubject } from './tool-subjects';

export type Behavior = 'allow' | 'ask' | 'deny';

export interface PolicyDecision {
  behavior: Behavior;
  /** The rule that decided and its scope; absent when a default decided. */
  rule?: { scope: PermissionScope; rule: string };
  /** Why: for ask, what could not be vouched for; for deny, what matched. */
  reasons: string[];
  /** What `allow_always` would store so that the same call is allowed next time (none for risky commands). */
  suggestedRules: string[];
}

interface ScopedRule extends PermissionRule {
  scope: PermissionScope;
}

interface Layers {
  allow: ScopedRule[];
  ask: ScopedRule[];
  deny: ScopedRule[];
}

const CATEGORIES: Readonly<Record<FileAction, readonly string[]>> = {
  read: [RuleKind.Read],
  write: [RuleKind.Edit, RuleKind.Write],
  delete: [RuleKind.Delete],
};
/** Defaults when no rule matches: reads are allowed, everything else is asked about. */
const FILE_DEFAULTS: Readonly<Record<FileAction, Behavior>> = { read: 'allow', write: 'ask', delete: 'ask' };

/**
 * The permission policy: deny, then ask, then allow, across every scope; the first match in that
 * order decides. A server rule can therefore never be loosened by a user, workspace or session.
 */
export class PermissionPolicy {
  constructor(private readonly parser: BashParser) {}

  evaluate(subject: PermissionSubject, layers: readonly RuleLayer[]): PolicyDecision {
    const rules = flatten(layers);
    switch (subject.kind) {
      case 'command':
        return this.command(subject.tool, subject.command, analyzeCommand(this.parser, subject.command), rules, subject.packageScripts);
      case 'files':
        return files(subject.tool, subject.targets, rules);
      case 'code':
      case 'other':
        return byName(subject.tool, rules);
      case 'runtime':
        return byName(subject.tool, rules, 'allow');
      case 'invalid':
        return { behavior: 'deny', reasons: [subject.message], suggestedRules: [] };
    }
  }

  private command(tool: string, text: string, analysis: CommandAnalysis, rules: Layers, packageScripts?: PackageScripts): PolicyDecision {
    const scripts = scriptFacts(analysis.commands, packageScripts);
    const matches = (rule: ScopedRule, command: SimpleCommand, normalise: boolean) =>
      isToolRule(rule, tool) ||
      (rule.name === RuleKind.Bash &&
        commandMatches(rule.specifier, command.words, normalise) &&
        (rule.scriptDigest === undefined || rule.scriptDigest === scripts.get(command)?.digest));
    const runs = [...scripts.values()].map((fact) => fact.line);
    for (const rule of rules.deny) {
      const hit = analysis.commands.find((c) => matches(rule, c, true));
      if (hit) return deny(rule, `${show(hit)} in ${JSON.stringify(text)} matches ${rule.text}`);
      if (analysis.risks.length > 0 && rule.name === RuleKind.Bash && scanMatches(rule.specifier, analysis.tokenRuns)) {
        return deny(rule, `${JSON.stringify(text)} contains ${rule.text} in a form that cannot be checked exactly`);
      }
    }
    for (const rule of rules.ask) {
      const hit = analysis.commands.find((c) => matches(rule, c, false));
      if (hit) return ask([`${show(hit)} matches ${rule.text}`], [], rule);
    }
    const allowAll = rules.allow.find((rule) => isToolRule(rule, tool) || (rule.name === RuleKind.Bash && matchesEverything(rule.specifier)));
    if (analysis.risks.length > 0) {
      if (allowAll) return { behavior: 'allow', rule: scoped(allowAll), reasons: runs, suggestedRules: [] };
      return ask([...analysis.risks, ...runs], []);
    }
    const unmatched = analysis.commands.filter((c) => !rules.allow.some((rule) => matches(rule, c, false)));
    if (unmatched.length === 0) {
      const first = rules.allow.find((rule) => analysis.commands.some((c) => matches(rule, c, false)));
      // The audit keeps what the allowed scripts were at the time.
      return { behavior: 'allow', rule: first && scoped(first), reasons: runs, suggestedRules: [] };
    }
    // Only when every command can be named exactly: a partial suggestion would not allow the call.
    const suggestions = unmatched.map((c) => literalCommandRule(c, scripts.get(c)));
    const complete = suggestions.every((rule) => rule !== undefined) ? [...new Set(suggestions as string[])] : [];
    const notes = unmatched.flatMap((c) => nearMisses(c, rules.allow));
    return ask([...unmatched.map((c) => `no rule allows ${show(c)}`), ...notes, ...runs], complete);
  }
}

function files(tool: string, targets: Array<{ action: FileAction; path: string }>, rules: Layers): PolicyDecision {
  const matches = (rule: ScopedRule, target: { action: FileAction; path: string }, forAllow: boolean) => {
    if (isToolRule(rule, tool)) return true;
    if (!CATEGORIES[target.action].includes(rule.name)) return false;
    if (rule.specifier === null) return true;
    const path = normalisePath(target.path);
    if (forAllow && path.outside) return false;
    return globMatches(rule.specifier, path.value);
  };
  for (const rule of rules.deny) {
    const hit = targets.find((t) => matches(rule, t, false));
    if (hit) return deny(rule, `${hit.action} ${hit.path} matches ${rule.text}`);
  }
  for (const rule of rules.ask) {
    const hit = targets.find((t) => matches(rule, t, false));
    if (hit) return ask([`${hit.action} ${hit.path} matches ${rule.text}`], [], rule);
  }
  const reasons: string[] = [];
  const suggestions: Array<string | undefined> = [];
  let decidedBy: ScopedRule | undefined;
  for (const target of targets) {
    const allowedBy = rules.allow.find((rule) => matches(rule, target, true));
    decidedBy ??= allowedBy;
    if (allowedBy || FILE_DEFAULTS[target.action] === 'allow') continue;
    reasons.push(`no rule allows ${target.action === 'delete' ? 'deleting' : 'writing'} ${target.path}`);
    suggestions.push(literalPathRule(suggestedKind(tool, target.action), target.path));
  }
  if (reasons.length > 0) {
    const complete = suggestions.every((rule) => rule !== undefined) ? (suggestions as string[]) : [];
    return ask(reasons, complete);
  }
  return { behavior: 'allow', rule: decidedBy && scoped(decidedBy), reasons: [], suggestedRules: [] };
}

function byName(tool: string, rules: Layers, fallback: Behavior = 'ask'): PolicyDecision {
  const deniedBy = rules.deny.find((rule) => isToolRule(rule, tool));
  if (deniedBy) return deny(deniedBy, `${tool} matches ${deniedBy.text}`);
  const askedBy = rules.ask.find((rule) => isToolRule(rule, tool));
  if (askedBy) return ask([`${tool} matches ${askedBy.text}`], [], askedBy);
  const allowedBy = rules.allow.find((rule) => isToolRule(rule, tool));
  if (allowedBy) return { behavior: 'allow', rule: scoped(allowedBy), reasons: [], suggestedRules: [] };
  if (fallback === 'allow') return { behavior: 'allow', reasons: [], suggestedRules: [] };
  return ask([`no rule allows ${tool}`], [tool]);
}

function flatten(layers: readonly RuleLayer[]): Layers {
  const pick = (list: 'allow' | 'ask' | 'deny') =>
    layers.flatMap((layer) => parseRules(layer.rules[list]).map((rule) => ({ ...rule, scope: layer.scope })));
  return { allow: pick('allow'), ask: pick('ask'), deny: pick('deny') };
}

/**
 * A bare rule naming this tool, or an MCP server (`mcp__github` covers every `mcp__github__*`
 * tool). Names are compared as (server, tool) pairs, never as text prefixes: `mcp__docs__evil`
 * names one tool of `docs` and covers no other.
 */
function isToolRule(rule: PermissionRule, tool: string): boolean {
  if (rule.specifier !== null) return false;
  if (rule.name === tool) return true;
  if (rule.name === RuleKind.Bash && tool === 'run_command') return true;
  const server = parseMcpName(rule.name);
  if (!server || server.tool !== undefined) return false;
  const called = parseMcpName(tool);
  return called?.tool !== undefined && called.server === server.server;
}

function matchesEverything(specifier: string | null): boolean {
  return specifier === null || specifier === '*' || specifier === ':*';
}

/**
 * `prefix:*` matches a command whose words start with the prefix's words; a pattern with `*`
 * matches the words joined by spaces as a glob; anything else must equal the command exactly.
 * With `normalise` (deny rules), `/usr/bin/curl` counts as `curl`.
 */
function commandMatches(specifier: string | null, words: Array<string | null>, normalise: boolean): boolean {
  if (matchesEverything(specifier)) return true;
  const candidates = [words];
  const first = words[0];
  if (normalise && first && first.includes('/')) candidates.push([basename(first), ...words.slice(1)]);
  const spec = (specifier as string).trim();
  return candidates.some((candidate) => {
    if (spec.endsWith(':*')) {
      const prefix = splitWords(spec.slice(0, -2));
      return prefix.length <= candidate.length && prefix.every((word, i) => candidate[i] === word);
    }
    const joined = candidate.map((w) => w ?? '\0').join(' ');
    if (spec.includes('*')) return globToRegExp(splitWords(spec).join(' ')).test(joined);
    return joined === splitWords(spec).join(' ');
  });
}

/** The deny scan of a risky command: the rule's leading literal words appear in a row anywhere. */
function scanMatches(specifier: string | null, runs: string[][]): boolean {
  if (matchesEverything(specifier)) return true;
  const spec = (specifier as string).replace(/:\*$/, '');
  const words: string[] = [];
  for (const word of splitWords(spec)) {
    if (word.includes('*')) break;
    words.push(word);
  }
  const [head, ...rest] = words;
  if (head === undefined) return true;
  return runs.some((run) =>
    run.some((token, i) => basename(token) === basename(head) && rest.every((word, k) => run[i + k + 1] === word)),
  );
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('[^\\0]*')}$`, 's');
}

function splitWords(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== '');
}

/** Paths are relative to the workspace root; one that leaves it never matches an allow rule. */
export function normalisePath(path: string): { value: string; outside: boolean } {
  const normalised = posix.normalize(path.replace(/\\/g, '/'));
  const value = normalised.replace(/^\.\/+/, '').replace(/\/+$/, '') || '.';
  const outside = value.startsWith('/') || value === '..' || value.startsWith('../');
  return { value, outside };
}

function globMatches(pattern: string, path: string): boolean {
  const anchored = pattern.replace(/^\/+/, '');
  // Without a `/` a pattern names a file at any depth; a leading `/` ties it to the root.
  const anyDepth = !pattern.includes('/');
  // A pattern without glob characters is a name, compared as text (picomatch throws on a
  // one-word pattern that is an Object.prototype key, such as `toString`).
  if (!/[*?[\]{}()!+@\\]/.test(anchored)) return path === anchored || (anyDepth && path.endsWith(`/${anchored}`));
  return picomatch(anchored, { dot: true, basename: anyDepth })(path);
}

/**
 * The rule `allow_always` stores for one command: its words exactly. None when a word is unknown
 * (`$(…)`), empty, holds a space or a `*`: written into a rule those would widen it (`rm '*'`
 * would become `Bash(rm *)`, which allows `rm -rf /`) or fail to match the same call again.
 */
function literalCommandRule(command: SimpleCommand, script: ScriptFact | undefined): string | undefined {
  if (command.words.some((word) => word === null || word === '' || /[\s*]/.test(word) || word.startsWith('#'))) return undefined;
  // A script-running command is allowed for what its script says now, or not always at all.
  if (script) return script.digest ? `Bash(${command.words.join(' ')} #script:${script.digest})` : undefined;
  return `Bash(${command.words.join(' ')})`;
}

interface ScriptFact {
  /** The fingerprint of what it runs; undefined when that cannot be known (no script, another package.json). */
  digest?: string;
  /** What it runs, for the question and the audit. */
  line: string;
}

/** The package.json script each command runs, where it runs one; after a `cd` the script is not the workspace's. */
function scriptFacts(commands: readonly SimpleCommand[], found: PackageScripts | undefined): Map<SimpleCommand, ScriptFact> {
  const facts = new Map<SimpleCommand, ScriptFact>();
  let cwdChanged = false;
  for (const command of commands) {
    const program = command.words[0];
    if (program === null || program === 'cd' || program === 'pushd' || program === 'popd') cwdChanged = true;
    const invocation = scriptInvocation(command.words);
    if (!invocation) continue;
    const read = found ?? { kind: 'none', why: 'it was not read' };
    const verifiable = !cwdChanged && !invocation.otherPackage && read.kind === 'read';
    const digest = verifiable ? scriptDigest(read.scripts, invocation.script) : undefined;
    facts.set(command, { ...(digest ? { digest } : {}), line: describeInvocation(show(command), invocation, read, cwdChanged) });
  }
  return facts;
}

/**
 * Why an allow rule that looks as if it covers the command does not: a `:*` prefix ends at a whole
 * word (`Bash(npm run test:*)` does not cover `npm run test:unit`, unlike Claude Code's text
 * prefixes), or the script changed since a bound rule was stored.
 */
function nearMisses(command: SimpleCommand, allow: readonly ScopedRule[]): string[] {
  const text = show(command);
  const notes: string[] = [];
  for (const rule of allow) {
    if (rule.name !== RuleKind.Bash || rule.specifier === null) continue;
    if (rule.scriptDigest !== undefined && commandMatches(rule.specifier, command.words, false)) {
      notes.push(`${rule.text} no longer covers ${text}: the script changed since it was allowed`);
    } else if (rule.specifier.endsWith(':*') && !matchesEverything(rule.specifier)) {
      const prefix = splitWords(rule.specifier.slice(0, -2)).join(' ');
      if (text.startsWith(prefix) && !commandMatches(rule.specifier, command.words, false)) {
        notes.push(`${rule.text} does not cover ${text}: a :* prefix ends at a whole word`);
      }
    }
  }
  return notes;
}

/**
 * The rule `allow_always` stores for one path: that file and no other, tied to the root. None
 * for a path outside the workspace (allow rules never match it), with glob characters, or with
 * spaces at its ends (a rule is trimmed).
 */
function literalPathRule(kind: string, path: string): string | undefined {
  const { value, outside } = normalisePath(path);
  if (outside || value === '.' || value !== value.trim() || /[*?[\]{}()!+@\\]/.test(value)) return undefined;
  return value.includes('/') ? `${kind}(${value})` : `${kind}(/${value})`;
}

function suggestedKind(tool: string, action: FileAction): string {
  if (action === 'delete') return RuleKind.Delete;
  return tool === 'edit_file' ? RuleKind.Edit : RuleKind.Write;
}

function show(command: SimpleCommand): string {
  return command.words.map((w) => w ?? '…').join(' ');
}

function scoped(rule: ScopedRule): { scope: PermissionScope; rule: string } {
  return { scope: rule.scope, rule: rule.text };
}

function deny(rule: ScopedRule, reason: string): PolicyDecision {
  return { behavior: 'deny', rule: scoped(rule), reasons: [reason], suggestedRules: [] };
}

function ask(reasons: string[], suggestedRules: string[], rule?: ScopedRule): PolicyDecision {
  return { behavior: 'ask', rule: rule && scoped(rule), reasons, suggestedRules };
}
