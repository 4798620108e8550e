import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredSessionEvent } from '@weft/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerPermissions, call, followTurn, newUserKey } from './support/api';

type Files = Record<string, string>;

function writeProject(files: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-build-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** Uploads a folder, opens a session on a scripted model, runs one turn allowing every call. */
async function turn(key: string, dir: string, model: string): Promise<{ workspaceId: string; sessionId: string; results: ToolResult[]; events: StoredSessionEvent[] }> {
  const archive = execFileSync('tar', ['-czf', '-', '-C', dir, '.']);
  const upload = await call<{ id: string }>('POST', '/v1/workspaces', key, new Uint8Array(archive), 'application/gzip');
  expect(upload.status).toBe(201);
  const session = await call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId: upload.body.id, model });
  expect(session.status).toBe(201);
  const posted = await call<{ turnId: string }>('POST', `/v1/sessions/${session.body.id}/messages`, key, { content: 'Build and test it.' });
  const permissions = answerPermissions(key, session.body.id, 'allow_once');
  const events = await followTurn(key, session.body.id, posted.body.turnId, undefined, permissions.onEvent);
  await Promise.all(permissions.answered);
  expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
  const results = events.flatMap((e) => (e.type === 'tool.completed' ? [{ name: e.name, isError: e.isError, output: e.output }] : []));
  return { workspaceId: upload.body.id, sessionId: session.body.id, results, events };
}

interface ToolResult {
  name: string;
  isError: boolean;
  output: string;
}

describe('the agent builds and tests real projects in its session container', () => {
  let key: string;

  beforeAll(async () => {
    key = await newUserKey('linus');
  });

  it('fixes a failing pytest test, sees it pass, and its writable run shows in the result and the patch', async () => {
    const project: Files = {
      'calc.py': 'def add(a, b):\n    return a - b\n',
      'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
      VERSION: '1.0.0\n',
    };
    const { workspaceId, results } = await turn(key, writeProject(project), 'scripted/python-fix');
    expect(results.map((r) => [r.name, r.isError])).toEqual([
      ['run_command', true],
      ['edit_file', false],
      ['run_command', false],
      ['run_command', false],
    ]);
    expect(results[0]!.output).toMatch(/1 failed/);
    expect(results[0]!.output).toContain('image: dev');
    expect(results[2]!.output).toMatch(/1 passed/);
    // (d) the writable run names what it did...
    expect(results[3]!.output).toMatch(/files changed:\n {2}created: CHANGES\.txt\n {2}modified: VERSION/);
    // ...and the patch carries it, pytest's cache excluded as an ignored dependency folder would be.
    const patch = await call<string>('GET', `/v1/workspaces/${workspaceId}/patch`, key);
    expect(patch.status).toBe(200);
    expect(patch.body).toContain('+++ b/CHANGES.txt');
    expect(patch.body).toMatch(/-1\.0\.0\n\+1\.0\.1/);
    const fresh = writeProject(project);
    writeFileSync(join(fresh, 'agent.patch'), patch.body);
    execFileSync('git', ['apply', 'agent.patch'], { cwd: fresh });
    expect(readFileSync(join(fresh, 'VERSION'), 'utf8')).toBe('1.0.1\n');
  });

  it('installs a real dependency with npm ci through the proxy and runs npm test; other hosts are refused', async () => {
    const dir = writeProject({
      'package.json': JSON.stringify({ name: 'e2e-node', version: '1.0.0', scripts: { test: 'node test.js' }, dependencies: { 'is-number': '7.0.0' } }),
      'test.js': "const isNumber = require('is-number');\nif (!isNumber(5) || isNumber('x')) process.exit(1);\nconsole.log('is-number works');\n",
    });
    // The lockfile `npm ci` needs, written by this machine's npm from the registry.
    execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
    const { results } = await turn(key, dir, 'scripted/node-install');
    expect(results[0]).toMatchObject({ name: 'run_command', isError: false });
    expect(results[0]!.output).toMatch(/added 1 package/);
    expect(results[0]!.output).toContain('dependency folders changed: node_modules/');
    expect(results[1]).toMatchObject({ isError: false });
    expect(results[1]!.output).toContain('is-number works');
    // A host off the allow list is refused by the proxy, naming it; a direct connection has no route.
    expect(results[2]!.output).toMatch(/403|example\.com/);
    expect(results[2]!.output).not.toContain('<!doctype html>');
    expect(results[2]!.output).toMatch(/Could not resolve host|Failed to connect|Network is unreachable|Resolving timed out/);
  });

  it('builds a C project and runs its tests with make test', async () => {
    const dir = writeProject({
      'sum.c': 'int sum(int a, int b) { return a + b; }\n',
      'test_sum.c': '#include <assert.h>\n#include <stdio.h>\nint sum(int, int);\nint main(void) { assert(sum(2, 3) == 5); puts("all tests passed"); return 0; }\n',
      Makefile: 'CC ?= gcc\n\ntest_sum: sum.c test_sum.c\n\t$(CC) -Wall -o $@ $^\n\ntest: test_sum\n\t./test_sum\n\n.PHONY: test\n',
    });
    const { results } = await turn(key, dir, 'scripted/c-make');
    expect(results[0]).toMatchObject({ name: 'run_command', isError: false });
    expect(results[0]!.output).toContain('all tests passed');
    expect(results[0]!.output).toContain('created: test_sum');
  });
});
