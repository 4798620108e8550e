import { z } from 'zod';

/** Rule names that take a specifier: a command pattern for Bash, a path glob for the file kinds. */
export const RuleKind = { Bash: 'Bash', Read: 'Read', Edit: 'Edit', Write: 'Write', Delete: 'Delete' } as const;
export type RuleKind = (typeof RuleKind)[keyof typeof RuleKind];
const KINDS = new Set<string>(Object.values(RuleKind));

/** A parsed rule: `Bash(npm run test:*)` is `{ name: 'Bash', specifier: 'npm run test:*' }`. */
export interface PermissionRule {
  name: string;
  specifier: string | null;
  text: string;
  /**
   * `Bash(npm run test #script:<digest>)`: the rule matches only while the package.json script the
   * command runs has this fingerprint (what `allow_always` stores for a script-running command).
   */
  scriptDigest?: string;
}

const SCRIPT_BINDING = /\s+#script:([0-9a-f]{16})$/;

export type PermissionScope = 'server' | 'user' | 'workspace' | 'workspace-file' | 'session';
/** Scopes a user can write rules to (server rules belong to the admin; the file belongs to the repo). */
export const writableScopes = ['user', 'workspace', 'session'] as const;
export type WritableScope = (typeof writableScopes)[number];

export interface RuleSet {
  allow: string[];
  ask: string[];
  deny: string[];
}

export interface RuleLayer {
  scope: PermissionScope;
  rules: RuleSet;
}

export const MAX_RULES_PER_LIST = 500;
const RULE_PATTERN = /^([A-Za-z][A-Za-z0-9_-]{0,127})(?:\((.+)\))?$/s;

/** Parses one rule; a string is the reason it is not one. */
export function parseRule(text: string): PermissionRule | string {
  const match = RULE_PATTERN.exec(text.trim());
  if (!match) return 'expected a tool name, optionally with a specifier in parentheses, e.g. Bash(npm run test:*)';
  const name = match[1] as string;
  const specifier = match[2]?.trim() ?? null;
  if (specifier === null) return { name, specifier, text: name };
  if (!KINDS.has(name)) return `${name} takes no specifier; specifiers are for ${[...KINDS].join(', ')}`;
  if (specifier === '') return 'the specifier is empty';
  const binding = name === RuleKind.Bash ? SCRIPT_BINDING.exec(specifier) : null;
  if (binding) {
    const command = specifier.slice(0, binding.index).trim();
    if (command === '' || command.includes('*')) return 'a #script: binding needs an exact command, without * or :*';
    return { name, specifier: command, text: `${name}(${command} #script:${binding[1]})`, scriptDigest: binding[1] };
  }
  if (name === RuleKind.Bash && specifier.slice(0, -2).includes(':*')) return ':* may only end a Bash specifier';
  return { name, specifier, text: `${name}(${specifier})` };
}

export function parseRules(texts: readonly string[]): PermissionRule[] {
  return texts.map(parseRule).filter((rule): rule is PermissionRule => typeof rule !== 'string');
}

const ruleTextSchema = z
  .string()
  .max(2000)
  .superRefine((text, ctx) => {
    const parsed = parseRule(text);
    if (typeof parsed === 'string') ctx.addIssue({ code: 'custom', message: `${JSON.stringify(text)}: ${parsed}` });
  })
  .transform((text) => (parseRule(text) as PermissionRule).text);
/** A list of rules, each validated and normalised. */
export const ruleListSchema = z.array(ruleTextSchema).max(MAX_RULES_PER_LIST);
const ruleList = ruleListSchema.default([]);

/** A scope's rules as clients send them; every rule is validated and normalised. */
export const ruleSetSchema = z.strictObject({ allow: ruleList, ask: ruleList, deny: ruleList });

export function emptyRuleSet(): RuleSet {
  return { allow: [], ask: [], deny: [] };
}
