import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { answerPermissions, call, followTurn, newUserKey } from './support/api';

const project: Record<string, string> = {
  'calc.py': 'def add(a, b):\n    return a - b\n',
  'greet.py': 'def greet(name):\n    return "Hello " + name\n',
  'test_project.py': [
    'import unittest',
    'from calc import add',
    'from greet import greet',
    '',
    'class ProjectTest(unittest.TestCase):',
    '    def test_add(self):',
    '        self.assertEqual(add(2, 3), 5)',
    '',
    '    def test_greet(self):',
    '        self.assertEqual(greet("Ada"), "Hello, Ada!")',
    '',
  ].join('\n'),
};

function writeProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-project-'));
  for (const [name, content] of Object.entries(project)) writeFileSync(join(dir, name), content);
  return dir;
}

describe('an agent fixes a real project in one turn, and its patch applies to the original', () => {
  let key: string;

  beforeAll(async () => {
    key = await newUserKey('grace');
  });

  it('searches, edits two files, runs the test suite, and exports a patch that git applies cleanly', async () => {
    const original = writeProject();
    const archive = execFileSync('tar', ['-czf', '-', '-C', original, '.']);
    const upload = await call<{ id: string }>('POST', '/v1/workspaces', key, new Uint8Array(archive), 'application/gzip');
    expect(upload.status).toBe(201);
    const session = await call<{ id: string }>('POST', '/v1/sessions', key, { workspaceId: upload.body.id, model: 'scripted/fix-and-test' });
    const posted = await call<{ turnId: string }>('POST', `/v1/sessions/${session.body.id}/messages`, key, { content: 'Make the tests pass.' });

    const permissions = answerPermissions(key, session.body.id, 'allow_once');
    const events = await followTurn(key, session.body.id, posted.body.turnId, undefined, permissions.onEvent);
    await Promise.all(permissions.answered);

    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    const results = events.filter((e) => e.type === 'tool.completed');
    expect(results.map((e) => [e.name, e.isError])).toEqual([
      ['search_files', false],
      ['edit_file', false],
      ['edit_file', false],
      ['run_command', false],
    ]);
    expect(results[0]?.output).toMatch(/calc\.py:1:.*def add/);
    expect(results[1]?.output).toContain('+    return a + b');
    expect(results[3]?.output).toMatch(/Ran 2 tests[\s\S]*OK/);

    const patch = await fetchText(`/v1/workspaces/${upload.body.id}/patch`, key);
    const fresh = writeProject();
    writeFileSync(join(fresh, 'agent.patch'), patch);
    execFileSync('git', ['apply', '--verbose', 'agent.patch'], { cwd: fresh });
    expect(readFileSync(join(fresh, 'calc.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(readFileSync(join(fresh, 'greet.py'), 'utf8')).toBe('def greet(name):\n    return f"Hello, {name}!"\n');
    // unittest exits non-zero (and execFileSync throws) if any test fails.
    expect(() => execFileSync('python3', ['-m', 'unittest', 'test_project'], { cwd: fresh, stdio: 'pipe' })).not.toThrow();
  });
});

async function fetchText(path: string, key: string): Promise<string> {
  const reply = await call<string>('GET', path, key);
  expect(reply.status).toBe(200);
  return reply.body;
}
