import { AppError, ErrorCode } from '@weft/contracts';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { putRulesBodySchema } from '@weft/contracts';
import { PermissionPolicy, normalisePath } from './policy';
import { type PermissionScope, type RuleLayer, MAX_RULES_PER_LIST, RuleKind, parseRule, ruleListSchema } from '@weft/contracts';
import { BashParser } from './shell/bash-parser';
import { subjectOf } from './tool-subjects';

const anyCodePoint = fc.integer({ min: 0, max: 0x10ffff }).map((code) => String.fromCodePoint(code));
const space = fc.constantFrom('', '', ' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u3000', '\ufeff');
const name = fc.oneof(
  fc.constantFrom(...Object.values(RuleKind), 'run_command', 'read_file', 'mcp__github', 'mcp__github__create_issue', 'WebFetch', 'bash', 'Ba sh', '9Bash', '_x'),
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,20}$/),
  fc.integer({ min: 125, max: 131 }).map((n) => `N${'n'.repeat(n)}`),
  fc.string({ maxLength: 8 }),
);
const specifier = fc.oneof(
  fc.constantFrom('npm run test:*', 'npm run test', ':*', '*', 'a:*b', 'a :* b:*', '**/*.ts', '/src/**', '../**', '[', '{a,b}', '!(x)', '(', ')', '()', '(())', '', ' ', '\0', '\\'),
  fc.string({ maxLength: 20 }),
  fc.string({ unit: anyCodePoint, maxLength: 10 }),
);
/** Rule-shaped text (a name, maybe a specifier in parentheses, stray spaces and brackets) and plain noise. */
const ruleText = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(space, name, space, fc.option(fc.tuple(specifier, space)), fc.constantFrom('', ')', '(', ' x')).map(([a, n, b, spec, tail]) => `${a}${n}${b}${spec ? `(${spec[0]})${spec[1]}` : ''}${tail}`) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: anyCodePoint, maxLength: 30 }) },
);

describe('permission rule parsing, for arbitrary text', () => {
  it('parses into a rule whose text is its normal form, or names the problem, and never throws', () => {
    fc.assert(
      fc.property(ruleText, (text) => {
        const parsed = parseRule(text);
        if (typeof parsed === 'string') {
          expect(parsed.length).toBeGreaterThan(0);
          return;
        }
        expect(parsed.name).toMatch(/^[A-Za-z][A-Za-z0-9_-]{0,127}$/);
        if (parsed.specifier === null) {
          expect(parsed.text).toBe(parsed.name);
        } else {
          expect(Object.values(RuleKind)).toContain(parsed.name);
          expect(parsed.specifier).toBe(parsed.specifier.trim());
          expect(parsed.specifier).not.toBe('');
          expect(parsed.text).toBe(`${parsed.name}(${parsed.specifier})`);
        }
        expect(parseRule(parsed.text)).toEqual(parsed);
      }),
      { numRuns: 500 },
    );
  });

  it('validates a list of rules into their normal forms, which validate to themselves, or fails with zod issues', () => {
    const lists = fc.oneof(fc.array(ruleText, { maxLength: 6 }), fc.array(fc.oneof(ruleText, fc.anything()), { maxLength: 4 }), fc.anything());
    fc.assert(
      fc.property(lists, (input) => {
        const result = ruleListSchema.safeParse(input);
        if (!result.success) {
          expect(result.error.issues.length).toBeGreaterThan(0);
          return;
        }
        const texts = input as string[];
        expect(texts.length).toBeLessThanOrEqual(MAX_RULES_PER_LIST);
        expect(result.data).toEqual(texts.map((text) => (parseRule(text) as { text: string }).text));
        expect(ruleListSchema.parse(result.data)).toEqual(result.data);
      }),
      { numRuns: 500 },
    );
  });

  it('turns any rules body into the rule set or a VALIDATION_FAILED error at the HTTP edge', () => {
    const pipe = new ZodValidationPipe(putRulesBodySchema);
    const lists = fc.oneof(fc.array(ruleText, { maxLength: 4 }), fc.anything());
    const bodies = fc.oneof(
      fc.record({ allow: lists, ask: lists, deny: lists }, { requiredKeys: [] }),
      fc.dictionary(fc.string({ maxLength: 8 }), lists, { maxKeys: 4 }),
      fc.anything(),
    );
    fc.assert(
      fc.property(bodies, (body) => {
        let set: unknown;
        try {
          set = pipe.transform(body, { type: 'body' });
        } catch (error) {
          expect(error).toBeInstanceOf(AppError);
          expect(error).toMatchObject({ code: ErrorCode.ValidationFailed });
          return;
        }
        expect(pipe.transform(set, { type: 'body' })).toEqual(set);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the permission policy, for arbitrary rules and file tool calls', () => {
  let policy: PermissionPolicy;
  beforeAll(async () => {
    policy = new PermissionPolicy(await BashParser.load());
  });

  const scope = fc.constantFrom<PermissionScope>('server', 'user', 'workspace', 'workspace-file', 'session');
  const rules = fc.array(ruleText, { maxLength: 4 });
  const layers = fc.array(
    fc.record({ scope, rules: fc.record({ allow: rules, ask: rules, deny: rules }) }),
    { maxLength: 3 },
  );
  const path = fc.oneof(fc.constantFrom('.', 'src/a.ts', '../x', '/etc/passwd', 'a/../../b', '.env', 'src\\..\\..\\x', ''), fc.string({ maxLength: 20 }));
  const call = fc.oneof(
    fc.record({ name: fc.constantFrom('read_file', 'write_file', 'edit_file', 'delete_file', 'create_directory', 'list_directory'), arguments: fc.record({ path }) }),
    fc.record({ name: fc.constant('move_file'), arguments: fc.record({ from: path, to: path }) }),
    fc.record({ name: fc.string({ maxLength: 12 }), arguments: fc.dictionary(fc.string({ maxLength: 6 }), fc.anything(), { maxKeys: 3 }) }),
  );

  it('decides without throwing, and a rule that is both denied and allowed never allows', () => {
    fc.assert(
      fc.property(layers, call, ruleText, scope, (ruleLayers, toolCall, both, bothScope) => {
        const extra: RuleLayer = { scope: bothScope, rules: { allow: [both], ask: [], deny: [both] } };
        const decision = policy.evaluate(subjectOf({ id: 'c1', ...toolCall }), [...ruleLayers, extra]);
        expect(['allow', 'ask', 'deny']).toContain(decision.behavior);
        const parsed = parseRule(both);
        if (typeof parsed !== 'string' && decision.rule?.rule === parsed.text) expect(decision.behavior).not.toBe('allow');
      }),
      // Found by this property: a call named like an Object.prototype member throws a TypeError in subjectOf.
      { numRuns: 400, examples: [[[], { name: 'toString', arguments: {} }, 'Bash', 'server']] },
    );
  });

  /** `suggestedRules` is what `allow_always` stores, as is, "so that the same call is allowed next time". */
  it('suggests rules that parse and, once stored, allow the same call', () => {
    const command = fc.oneof(
      fc.constantFrom('npm run build', 'git log --format=%h:*', 'echo a:*b', 'ls  -la ', 'cat "a b"', "echo ''", 'rm -rf build'),
      fc.array(fc.oneof(fc.stringMatching(/^[a-z]{1,6}$/), fc.constantFrom('-x', ':*', 'a:*', '*', '""', ' ', '\t')), { minLength: 1, maxLength: 4 }).map((w) => w.join(' ')),
    );
    const asked = fc.oneof(
      fc.record({ name: fc.constantFrom('write_file', 'edit_file', 'delete_file', 'create_directory'), arguments: fc.record({ path }) }),
      fc.record({ name: fc.constant('move_file'), arguments: fc.record({ from: path, to: path }) }),
      fc.record({ name: fc.constant('run_command'), arguments: fc.record({ command }) }),
      fc.record({ name: fc.constantFrom('execute_code', 'mcp__github__create_issue'), arguments: fc.constant({}) }),
    );
    fc.assert(
      fc.property(asked, (toolCall) => {
        const subject = subjectOf({ id: 'c1', ...toolCall });
        const first = policy.evaluate(subject, []);
        fc.pre(first.behavior === 'ask' && first.suggestedRules.length > 0);
        for (const suggested of first.suggestedRules) expect(parseRule(suggested), suggested).not.toBeTypeOf('string');
        const stored: RuleLayer = { scope: 'session', rules: { allow: first.suggestedRules, ask: [], deny: [] } };
        expect(policy.evaluate(subject, [stored]).behavior, first.suggestedRules.join(', ')).toBe('allow');
      }),
      {
        numRuns: 300,
        // Found by this property; each is asked about again after allow_always.
        examples: [
          [{ name: 'run_command', arguments: { command: 'git log --format=%h:*' } }],
          [{ name: 'run_command', arguments: { command: '"" a' } }],
          [{ name: 'write_file', arguments: { path: '../x' } }],
          [{ name: 'write_file', arguments: { path: 'notes.txt ' } }],
          // picomatch threw on a one-word pattern named like an Object.prototype member.
          [{ name: 'write_file', arguments: { path: 'toString' } }],
        ],
      },
    );
  });

  it('suggests rules that allow the file it asked about and no other', () => {
    const glob = fc.constantFrom('*', '**', '**/*', 'src/*', '?', 'a?c', '[ab].ts', 'x[1].txt', '{a,b}', '!(x)', '+(a)', 'a/**/b');
    const target = fc.oneof(glob, path, fc.tuple(glob, path).map(([g, p]) => `${p}/${g}`));
    fc.assert(
      fc.property(target, fc.oneof(path, glob, fc.constantFrom('src/index.ts', 'a', 'b', 'abc', 'x1.txt', 'ab.ts')), (asked, other) => {
        const subject = subjectOf({ id: 'c1', name: 'write_file', arguments: { path: asked } });
        const stored: RuleLayer = { scope: 'session', rules: { allow: policy.evaluate(subject, []).suggestedRules, ask: [], deny: [] } };
        fc.pre(normalisePath(other).value !== normalisePath(asked).value);
        const otherCall = subjectOf({ id: 'c2', name: 'write_file', arguments: { path: other } });
        expect(policy.evaluate(otherCall, [stored]).behavior, stored.rules.allow.join(', ')).not.toBe('allow');
      }),
      // Found by this property: a file named `**` gets the suggestion Write(**), which allows every write.
      { numRuns: 300, examples: [['**', 'src/index.ts']] },
    );
  });

  it('suggests Bash rules that allow the command it asked about and no unrelated one', () => {
    const word = fc.oneof(fc.stringMatching(/^[a-z]{1,5}$/), fc.constantFrom('*', "'*'", '"*"', '\\*', '-*', '*.log', "'%h:*'", ':*'));
    const asked = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
    const unrelated = fc.constantFrom('rm -rf /', 'cat /etc/shadow', 'git push --force origin main', 'shutdown now');
    fc.assert(
      fc.property(asked, unrelated, (command, other) => {
        const first = policy.evaluate(subjectOf({ id: 'c1', name: 'run_command', arguments: { command } }), []);
        const stored: RuleLayer = { scope: 'session', rules: { allow: first.suggestedRules, ask: [], deny: [] } };
        const next = policy.evaluate(subjectOf({ id: 'c2', name: 'run_command', arguments: { command: other } }), [stored]);
        expect(next.behavior, `${command} suggested ${stored.rules.allow.join(', ')}`).not.toBe('allow');
      }),
      // Found by this property: `rm '*'` gets the suggestion Bash(rm *), which then allows `rm -rf /`.
      { numRuns: 300, examples: [["rm '*'", 'rm -rf /']] },
    );
  });
});
