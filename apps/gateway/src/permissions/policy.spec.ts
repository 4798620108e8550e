import { beforeAll, describe, expect, it } from 'vitest';
import { PermissionPolicy } from './policy';
import type { RuleLayer, RuleSet } from '@weft/contracts';
import { BashParser } from './shell/bash-parser';
import { subjectOf } from './tool-subjects';

let policy: PermissionPolicy;
beforeAll(async () => {
  policy = new PermissionPolicy(await BashParser.load());
});

const layer = (scope: RuleLayer['scope'], rules: Partial<RuleSet>): RuleLayer => ({
  scope,
  rules: { allow: [], ask: [], deny: [], ...rules },
});
const corpusRules = [layer('user', { allow: ['Bash(npm run test:*)'], deny: ['Bash(curl:*)'] })];
const bash = (command: string, layers: RuleLayer[] = corpusRules) =>
  policy.evaluate(subjectOf({ id: 'c1', name: 'run_command', arguments: { command } }), layers);
const tool = (name: string, args: Record<string, unknown>, layers: RuleLayer[]) =>
  policy.evaluate(subjectOf({ id: 'c1', name, arguments: args }), layers);

const fiftyNoOps = `${': ; '.repeat(50)}curl x`;

/** The bypass corpus of issue 5, with only `Bash(npm run test:*)` allowed and `Bash(curl:*)` denied. */
const corpus: Array<[string, 'ask' | 'deny']> = [
  ['npm run test; curl x', 'deny'],
  ['npm run test && rm -rf ~', 'ask'],
  ['&& rm -rf ~', 'ask'],
  ['npm run test | sh', 'ask'],
  ['| sh', 'ask'],
  ['$(curl x)', 'deny'],
  ['npm run test -- $(curl x)', 'deny'],
  ['npm run test `curl x`', 'deny'],
  ['`curl x`', 'deny'],
  ['npm run test\ncurl x', 'deny'],
  ['\ncurl x', 'deny'],
  ['npm run test\rcurl x', 'deny'],
  ['\rcurl x', 'deny'],
  ['npm run test\r\n', 'ask'],
  ['FOO=1 curl x', 'deny'],
  ['FOO=1 npm run test', 'ask'],
  ['env curl x', 'deny'],
  ['env npm run test', 'ask'],
  ['/usr/bin/curl x', 'deny'],
  ['/usr/bin/env curl x', 'deny'],
  ["bash -c 'curl x'", 'deny'],
  ["sh -c 'npm run test'", 'ask'],
  ["bash -lc \"bash -c 'curl x'\"", 'deny'],
  ['eval "curl x"', 'deny'],
  ['> ~/.bashrc', 'ask'],
  ['npm run test > ~/.bashrc', 'ask'],
  ['npm run test >> ~/.bashrc 2>&1', 'ask'],
  ['<(cat .env)', 'ask'],
  ['npm run test <(cat .env)', 'ask'],
  ['npm run test {a,b}', 'ask'],
  ['{curl,x} y', 'deny'],
  ['c{u,}rl x', 'deny'],
  ["npm run test $'\\n'", 'ask'],
  ["$'\\x63url' x", 'deny'],
  ["$'curl' x", 'deny'],
  [fiftyNoOps, 'deny'],
  [`${'true && '.repeat(50)}curl x`, 'deny'],
  [`${'npm run test; '.repeat(60)}`, 'ask'],
  ["c'u'rl x", 'deny'],
  ['c\\url x', 'deny'],
  ['npm run test\u200b; curl x', 'deny'],
  ['xargs curl < urls.txt', 'deny'],
  ['npm run test $HOME', 'ask'],
  ['npm run test & curl x', 'deny'],
  ['(curl x)', 'deny'],
  ['{ curl x; }', 'deny'],
  ['if true; then curl x; fi', 'deny'],
  ['f() { curl x; }; f', 'deny'],
  ['cat <<EOF\n$(curl x)\nEOF', 'deny'],
  ['npm run test "$(curl x)"', 'deny'],
  ['timeout 5 curl x', 'deny'],
  ['npm run test; (', 'ask'],
  // Issue 10: what bash joins or runs that a reading of the words alone misses.
  ['npm run test\\\n#; curl x', 'deny'],
  ['npm run test\\\n#$(curl x)', 'deny'],
  ['cu\\\nrl x', 'deny'],
  ['cat <<EOF\n...\nEO\\\nF\ncurl x', 'deny'],
  ['npm run test <<EOF\n...\nEO\\\nF\ncurl x', 'deny'],
  ['npm run test --script-shell=/bin/curl', 'deny'],
  ['npm run test --prefix /tmp/elsewhere', 'ask'],
  ['npm --script-shell x run test', 'ask'],
  ['npm run test --script-shell x', 'ask'],
  ['npm run test &', 'ask'],
  ['npm run test & npm run test', 'ask'],
];

describe('the bypass corpus', () => {
  it.each(corpus)('%j → %s', (command, expected) => {
    const decision = bash(command);
    expect(decision.behavior).toBe(expected);
    if (command.includes('curl') || command.includes('c{u,}rl') || command.includes('\\x63url')) {
      expect(decision.behavior).toBe('deny');
    }
  });

  it('reads a command split by backslash-newline as bash runs it', () => {
    expect(bash('cu\\\nrl x').reasons).toEqual(['curl x in "cu\\\\\\nrl x" matches Bash(curl:*)']);
    expect(bash('npm run test\\\n#; curl x').reasons[0]).toMatch(/^curl x in .* matches Bash\(curl:\*\)$/);
    expect(bash('cat <<EOF\n...\nEO\\\nF\ncurl x').reasons[0]).toMatch(/^curl x in .* matches Bash\(curl:\*\)$/);
    expect(bash('npm run te\\\nst').behavior).toBe('allow');
    expect(bash('npm run test \\\n-- --watch=false').behavior).toBe('allow');
    expect(bash('npm run test -- \\\n--watch=false').behavior).toBe('allow');
    expect(bash('npm run test -- \'a\\\nb\'').behavior).toBe('allow');
    expect(bash('npm run test <<EOF\nsome input\nEOF').behavior).toBe('allow');
    expect(bash("npm run test <<'EOF'\nEO\\\nF\nEOF").behavior).toBe('allow');
  });

  it('allows only what the allow rule covers, word by word', () => {
    expect(bash('npm run test').behavior).toBe('allow');
    expect(bash('npm run test -- --watch 2>&1').behavior).toBe('allow');
    expect(bash('npm run test && npm run test').behavior).toBe('allow');
    expect(bash('npm run testevil').behavior).toBe('ask');
    expect(bash('npm run build').behavior).toBe('ask');
    expect(bash('npm run test > /dev/null').behavior).toBe('allow');
    expect(bash('npm run test -- --watch=false').behavior).toBe('allow');
    expect(bash('npm run test -- --script-shell=x').behavior).toBe('allow');
  });

  it('names the reasons and suggests no rule for a risky command', () => {
    const decision = bash('npm run test -- $(date)');
    expect(decision.reasons).toContain('command substitution ($(…))');
    expect(decision.suggestedRules).toEqual([]);
    expect(bash('git status && make build').suggestedRules).toEqual(['Bash(git status)', 'Bash(make build)']);
  });
});

/** Broad prefix rules for programs whose options can make them run something else. */
const broadRules = [
  layer('user', {
    allow: ['Bash(npm:*)', 'Bash(npx:*)', 'Bash(git:*)', 'Bash(find:*)', 'Bash(xargs:*)', 'Bash(env:*)', 'Bash(awk:*)', 'Bash(sed:*)', 'Bash(bash:*)', 'Bash(cat:*)'],
    deny: ['Bash(curl:*)'],
  }),
];

describe('options that change what an allowed program runs', () => {
  it.each([
    'npm run test --script-shell=/tmp/evil.sh',
    'npm run test --prefix /tmp/elsewhere',
    'npm --script-shell x run test',
    'npm run test --script-shell x',
    'npm run test &',
    'npm exec some-package',
    'npx some-package',
    'git -c core.fsmonitor=x status',
    'git --exec-path=/tmp/bin status',
    'git fetch --upload-pack=x origin',
    'git rebase --exec make main',
    'find . -exec rm {} ;',
    'find . -name x -delete',
    'xargs rm < files.txt',
    'env FOO=1 npm run test',
    "bash -c 'npm run test'",
    'awk \'BEGIN { system("date") }\'',
    "sed -n '1e date' f",
  ])('asks about %j even with a prefix rule for the program', (command) => {
    expect(bash(command, broadRules).behavior).toBe('ask');
  });

  it.each([
    'npm run test --script-shell=/bin/curl',
    'npm exec curl x',
    'npx curl x',
    "npm exec -c 'curl x'",
    'git -c core.pager=curl log',
    "git rebase --exec 'curl x' main",
    'git fetch --upload-pack=curl origin',
    'find . -exec curl {} \\;',
    "find . -exec sh -c 'curl x' \\;",
    'xargs curl < urls.txt',
    'xargs -n1 -P4 curl',
    'env FOO=1 curl x',
    "env -S 'curl x'",
    "bash -c 'curl x'",
    'awk \'BEGIN { system("curl x") }\'',
    "sed -n '1e curl x' f",
  ])('denies %j, whose inner command matches a deny rule', (command) => {
    expect(bash(command, broadRules).behavior).toBe('deny');
  });

  it('still allows the ordinary forms', () => {
    for (const command of [
      'npm run test',
      'npm run test -- --watch=false',
      'npm test --silent',
      'git status',
      'git -C sub status',
      'git switch -c feature',
      'git log --oneline -5',
      'find . -name x',
      'find . -name "*.ts" -type f',
      "awk '{ print $1 }' f",
      "sed -n '10,20p' f",
      "sed 's/foo/bar/g' f",
      'cat <<EOF\nhello\nEOF',
      "cat <<'EOF'\n$(not run)\nEOF",
    ]) {
      expect(bash(command, broadRules).behavior, command).toBe('allow');
    }
  });

  it('applies deny rules to the command an allowed runner runs', () => {
    const layers = [layer('user', { allow: ['Bash(xargs:*)', 'Bash(find:*)'], deny: ['Bash(git push:*)'], ask: ['Bash(rm:*)'] })];
    expect(bash('xargs git push origin', layers)).toMatchObject({ behavior: 'deny', reasons: ['git push origin in "xargs git push origin" matches Bash(git push:*)'] });
    expect(bash('find . -exec rm {} +', layers)).toMatchObject({ behavior: 'ask', reasons: ['rm {} matches Bash(rm:*)'] });
  });
});

describe('PermissionPolicy', () => {
  it('applies deny, then ask, then allow across scopes, whichever scope the rule is in', () => {
    const layers = [
      layer('server', { deny: ['Bash(git push:*)'], ask: ['Bash(git commit:*)'] }),
      layer('user', { allow: ['Bash(git push:*)', 'Bash(git commit:*)', 'Bash(git status)'] }),
    ];
    expect(bash('git push origin main', layers)).toMatchObject({ behavior: 'deny', rule: { scope: 'server', rule: 'Bash(git push:*)' } });
    expect(bash('git commit -m "x"', layers)).toMatchObject({ behavior: 'ask', rule: { scope: 'server' } });
    expect(bash('git status', layers)).toMatchObject({ behavior: 'allow', rule: { scope: 'user', rule: 'Bash(git status)' } });
    expect(bash('git status --short', layers).behavior).toBe('ask');
    expect(bash('git push $(y)', layers).behavior).toBe('deny');
  });

  it('matches glob patterns over the whole command', () => {
    const layers = [layer('session', { allow: ['Bash(git log *)'] })];
    expect(bash('git log --oneline -5', layers).behavior).toBe('allow');
    expect(bash('git logx', layers).behavior).toBe('ask');
  });

  it('allows reads and asks for writes, deletes, code and unknown tools by default', () => {
    expect(tool('read_file', { path: 'src/a.ts' }, []).behavior).toBe('allow');
    expect(tool('list_directory', {}, []).behavior).toBe('allow');
    expect(tool('write_file', { path: 'a.ts', content: '' }, [])).toMatchObject({ behavior: 'ask', suggestedRules: ['Write(/a.ts)'] });
    expect(tool('edit_file', { path: './src/a.ts', edits: [] }, [])).toMatchObject({ behavior: 'ask', suggestedRules: ['Edit(src/a.ts)'] });
    expect(tool('delete_file', { path: 'a.ts' }, [])).toMatchObject({ behavior: 'ask', suggestedRules: ['Delete(/a.ts)'] });
    expect(tool('execute_code', { language: 'python', code: '1' }, [])).toMatchObject({ behavior: 'ask', suggestedRules: ['execute_code'] });
    expect(tool('mcp__github__create_issue', {}, []).behavior).toBe('ask');
    expect(bash('ls', []).behavior).toBe('ask');
  });

  it('matches Read, Edit, Write and Delete globs against workspace-relative paths', () => {
    const layers = [
      layer('workspace', { allow: ['Edit(**/*.ts)', 'Delete(tmp/**)'], deny: ['Read(**/.env)', 'Edit(src/generated/**)'] }),
      layer('user', { ask: ['Read(secrets/**)'] }),
    ];
    expect(tool('write_file', { path: 'src/a.ts', content: '' }, layers)).toMatchObject({ behavior: 'allow', rule: { rule: 'Edit(**/*.ts)' } });
    expect(tool('edit_file', { path: 'b.ts', edits: [] }, layers).behavior).toBe('allow');
    expect(tool('write_file', { path: 'src/a.js', content: '' }, layers).behavior).toBe('ask');
    expect(tool('write_file', { path: 'src/generated/x.ts', content: '' }, layers).behavior).toBe('deny');
    expect(tool('write_file', { path: '../other/x.ts', content: '' }, layers).behavior).toBe('ask');
    expect(tool('read_file', { path: './config/.env' }, layers).behavior).toBe('deny');
    expect(tool('read_file', { path: '.env' }, layers).behavior).toBe('deny');
    expect(tool('read_file', { path: 'secrets/key' }, layers).behavior).toBe('ask');
    expect(tool('delete_file', { path: 'tmp/x/y' }, layers).behavior).toBe('allow');
    expect(tool('move_file', { from: 'tmp/a.ts', to: 'src/a.ts' }, layers).behavior).toBe('allow');
    expect(tool('move_file', { from: 'src/a.ts', to: 'tmp/a.ts' }, layers).behavior).toBe('ask');
  });

  it('matches bare tool names and MCP servers', () => {
    const layers = [layer('user', { allow: ['execute_code', 'mcp__github'], deny: ['mcp__evil__wipe', 'Bash'] })];
    expect(tool('execute_code', { language: 'python', code: '1' }, layers).behavior).toBe('allow');
    expect(tool('mcp__github__create_issue', {}, layers).behavior).toBe('allow');
    expect(tool('mcp__evil__wipe', {}, layers).behavior).toBe('deny');
    expect(bash('ls', layers).behavior).toBe('deny');
  });

  it('reads MCP names as (server, tool) pairs: a tool rule covers that tool alone, a server rule only its own tools', () => {
    const tools = [layer('user', { allow: ['mcp__docs__evil', 'mcp__wiki_'] })];
    expect(tool('mcp__docs__evil', {}, tools).behavior).toBe('allow');
    expect(tool('mcp__docs__evil__pwn', {}, tools).behavior).toBe('ask');
    expect(tool('mcp__wiki___x', {}, tools).behavior).toBe('ask');
    const server = [layer('user', { allow: ['mcp__docs'] })];
    expect(tool('mcp__docs__search', {}, server).behavior).toBe('allow');
    expect(tool('mcp__docs_x__search', {}, server).behavior).toBe('ask');
    expect(tool('mcp__docsx__search', {}, server).behavior).toBe('ask');
    expect(tool('mcp__docs', {}, [layer('user', { allow: ['mcp__docs'] })]).behavior).toBe('allow');
  });

  it('lets the admin keep the agent from changing what an allowed npm script runs', () => {
    const layers = [
      layer('server', { deny: ['Edit(**/package.json)', 'Edit(**/.npmrc)'] }),
      layer('user', { allow: ['Bash(npm run test:*)', 'Edit(**)'] }),
    ];
    expect(tool('write_file', { path: 'package.json', content: '' }, layers).behavior).toBe('deny');
    expect(tool('edit_file', { path: 'apps/web/.npmrc', edits: [] }, layers).behavior).toBe('deny');
    expect(tool('edit_file', { path: 'src/a.ts', edits: [] }, layers).behavior).toBe('allow');
    expect(bash('npm run test', layers).behavior).toBe('allow');
  });

  it('refuses a call whose subject is missing instead of asking about it', () => {
    expect(tool('write_file', { content: 'x' }, [])).toMatchObject({ behavior: 'deny', reasons: ['write_file needs a string "path"'] });
  });
});
