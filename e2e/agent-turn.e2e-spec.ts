import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { create as createTar } from 'tar';
import { beforeAll, describe, expect, it } from 'vitest';
import { admin, answerPermissions, call, followTurn, newUserKey } from './support/api';
import { gatewayUrl } from './support/stack';

const run = promisify(execFile);

async function workspaceArchive(files: Record<string, string>): Promise<Uint8Array> {
  const dir = mkdtempSync(join(tmpdir(), 'weft-e2e-ws-'));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  const chunks: Buffer[] = [];
  const stream = createTar({ gzip: true, cwd: dir }, Object.keys(files));
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
}

describe('Weft through its public API, on the compose stack', () => {
  let ada: string;
  let bob: string;
  let workspaceId: string;

  beforeAll(async () => {
    // Not `ada` and `bob`: the SSO e2e signs users of those names in on the same stack.
    [ada, bob] = await Promise.all([newUserKey('turn-ada'), newUserKey('turn-bob')]);
    const upload = await call<{ id: string }>('POST', '/v1/workspaces', ada, await workspaceArchive({ 'hello.txt': 'hello from the e2e workspace\n' }), 'application/gzip');
    expect(upload.status).toBe(201);
    workspaceId = upload.body.id;
  });

  it('lists the GGUF model and the scripted models', async () => {
    const models = await call<{ models: Array<{ id: string }> }>('GET', '/v1/models', ada);
    expect(models.status).toBe(200);
    expect(models.body.models.map((m) => m.id)).toEqual(expect.arrayContaining(['tiny', 'scripted/read-write-run']));
  });

  it('runs a scripted turn that reads a file, writes a file and runs python in the sandbox', async () => {
    const session = await call<{ id: string }>('POST', '/v1/sessions', ada, { workspaceId, model: 'scripted/read-write-run' });
    expect(session.status).toBe(201);
    const before = await call<{ lastEventId?: string }>('GET', `/v1/sessions/${session.body.id}`, ada);
    const posted = await call<{ turnId: string }>('POST', `/v1/sessions/${session.body.id}/messages`, ada, { content: 'Do the three things.' });
    expect(posted.status).toBe(202);

    // Reads are allowed by default; the write and the python run ask, and the user allows them.
    const permissions = answerPermissions(ada, session.body.id, 'allow_once');
    const events = await followTurn(ada, session.body.id, posted.body.turnId, before.body.lastEventId, permissions.onEvent);
    expect((await Promise.all(permissions.answered)).map((r) => r.status)).toEqual([200, 200]);
    const asked = events.filter((e) => e.type === 'permission.requested');
    expect(asked.map((e) => ('call' in e ? e.call.name : ''))).toEqual(['write_file', 'execute_code']);
    const types = events.map((e) => e.type);
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed', turnId: posted.body.turnId });
    expect(types.slice(0, 2)).toEqual(['message.created', 'turn.started']);
    expect(types).toContain('message.delta');
    const completed = events.filter((e) => e.type === 'tool.completed');
    expect(completed.map((e) => e.name)).toEqual(['read_file', 'write_file', 'execute_code']);
    expect(completed.every((e) => !e.isError)).toBe(true);
    expect(completed[0]?.output).toContain('hello from the e2e workspace');
    expect(completed[2]?.output).toContain('42');
    const final = events.find((e) => e.type === 'message.completed');
    expect(final && 'content' in final ? final.content : '').toContain('Python printed 42');

    const written = await call('GET', `/v1/workspaces/${workspaceId}/files/out/result.txt`, ada);
    expect(written.status).toBe(200);
    expect(written.body).toBe('written by weft\n');

    const detail = await call<{ messages: Array<{ role: string }> }>('GET', `/v1/sessions/${session.body.id}`, ada);
    expect(detail.body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);

    // Another user sees neither the session nor the workspace.
    expect((await call('GET', `/v1/sessions/${session.body.id}`, bob)).status).toBe(404);
    expect((await call('GET', `/v1/workspaces/${workspaceId}/files/hello.txt`, bob)).status).toBe(404);
    expect((await call('POST', `/v1/sessions/${session.body.id}/messages`, bob, { content: 'hi' })).status).toBe(404);
  });

  it('streams a turn on the generated GGUF through the SSE endpoint', async () => {
    const session = await call<{ id: string }>('POST', '/v1/sessions', ada, { workspaceId, model: 'tiny' });
    expect(session.status).toBe(201);
    const posted = await call<{ turnId: string }>('POST', `/v1/sessions/${session.body.id}/messages`, ada, { content: 'Say hello.' });
    const events = await followTurn(ada, session.body.id, posted.body.turnId);
    const deltas = events.filter((e) => e.type === 'message.delta');
    const last = events.at(-1);
    expect(last && last.type === 'turn.failed' ? `${last.code}: ${last.message}` : last?.type).toBe('turn.completed');
    expect(deltas.length).toBeGreaterThan(1);
  });

  it('refuses bad input with a 4xx that names the problem, and keeps what is stored', async () => {
    expect((await call('GET', '/v1/sessions', 'wrong-key')).status).toBe(401);
    const missing = await call<{ error: { message: string } }>('POST', '/v1/sessions', ada, { model: 'tiny' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/workspaceId/);
    const unknown = await call<{ error: { message: string } }>('POST', '/v1/sessions', ada, { workspaceId, model: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/tiny/);
    const malformed = await call('POST', '/v1/sessions', ada, '{"workspaceId":');
    expect(malformed.status).toBe(400);
    const slip = await call<{ error: { message: string } }>('POST', '/v1/workspaces', ada, await traversalArchive(), 'application/gzip');
    expect(slip.status).toBe(400);
    expect(slip.body.error.message).toContain('../escape.txt');
    expect((await admin('POST', '/v1/admin/users', { name: '' })).status).toBe(400);
    const still = await call('GET', `/v1/workspaces/${workspaceId}/files/hello.txt`, ada);
    expect(still.body).toBe('hello from the e2e workspace\n');
  });

  it('runs a task with the weft CLI and exits 0', async () => {
    // The user allows writes and code runs for all their sessions, so the one-shot run never stops to ask.
    const rules = await call('PUT', '/v1/permissions/user', ada, { allow: ['Write(**)', 'execute_code'] });
    expect(rules.status).toBe(200);
    const cli = resolve(__dirname, '../apps/cli/dist/main.js');
    const env = { ...process.env, WEFT_URL: gatewayUrl, WEFT_KEY: ada, NO_COLOR: '1', XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'weft-cli-')) };
    const { stdout } = await run('node', [cli, 'run', 'Do the three things.', '--model', 'scripted/read-write-run', '--workspace', workspaceId], { env });
    expect(stdout).toContain('Python printed 42');
    expect(stdout).toContain('execute_code');
  });

  it('runs a planning turn and a delegated turn from the CLI, showing every step', async () => {
    const cli = resolve(__dirname, '../apps/cli/dist/main.js');
    const env = { ...process.env, WEFT_URL: gatewayUrl, WEFT_KEY: ada, NO_COLOR: '1', XDG_CONFIG_HOME: mkdtempSync(join(tmpdir(), 'weft-cli-')) };
    const planned = await run('node', [cli, 'run', 'Survey this project', '--plan', '--model', 'scripted/planner', '--workspace', workspaceId], { env });
    for (const line of ['▸ plan', '1. Survey', '▸ subtask 1/2: Survey', '● list_directory', '✓ subtask 1/2 done', '▸ subtask 2/2: Report', 'Both subtasks ran']) {
      expect(planned.stdout).toContain(line);
    }

    const delegated = await run('node', [cli, 'run', 'What is this project?', '--model', 'scripted/senior', '--workspace', workspaceId], { env });
    for (const line of ['● delegate', '⇢ scripted/senior hands to scripted/junior', '● list_directory', '⇠ scripted/junior reports back to scripted/senior', '✎ noted', 'I reviewed the junior']) {
      expect(delegated.stdout).toContain(line);
    }
    const notes = await call<{ notes: Array<{ text: string; author: string }> }>('GET', `/v1/workspaces/${workspaceId}/notes`, ada);
    expect(notes.body.notes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ text: 'Note for Senior: I only looked at the top level.', author: 'scripted/junior' }),
        expect.objectContaining({ text: 'the senior reviews every hand-off before answering.', author: 'scripted/senior' }),
      ]),
    );
    expect((await call('GET', `/v1/workspaces/${workspaceId}/notes`, bob)).status).toBe(404);
  });
});

/** A tar.gz whose one entry climbs out of the workspace. */
async function traversalArchive(): Promise<Uint8Array> {
  const header = Buffer.alloc(512);
  const name = '../escape.txt';
  const body = Buffer.from('gotcha\n');
  header.write(name, 0, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(body.length.toString(8).padStart(11, '0') + '\0', 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148);
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  const padded = Buffer.concat([body, Buffer.alloc(512 - body.length)]);
  const tarball = Buffer.concat([header, padded, Buffer.alloc(1024)]);
  const { gzipSync } = await import('node:zlib');
  return new Uint8Array(gzipSync(tarball));
}
