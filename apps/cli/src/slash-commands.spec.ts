import { createColors } from 'picocolors';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { type ChatState, SlashCommands, isSlashCommand } from './slash-commands';
import { type StubGateway, type StubGatewayOptions, startStubGateway } from './testing/stub-gateway';

const KEY = 'weft_test';

describe('chat slash commands', () => {
  let gateway: StubGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  async function setup(options: Partial<StubGatewayOptions> = {}) {
    gateway = await startStubGateway({ key: KEY, turns: [], ...options });
    const state: ChatState = { sessionId: 'ses_1' };
    const output = { out: '', err: '' };
    const commands = new SlashCommands(
      new ApiClient(gateway.url, KEY),
      state,
      { write: (text: string) => (output.out += text) },
      { write: (text: string) => (output.err += text) },
      createColors(false),
    );
    return { state, output, commands, gateway };
  }

  it('tells commands from messages', () => {
    expect(isSlashCommand('/help')).toBe(true);
    expect(isSlashCommand('/resume ses_2')).toBe(true);
    expect(isSlashCommand('fix /etc/hosts')).toBe(false);
    expect(isSlashCommand('// a comment')).toBe(false);
    expect(isSlashCommand('/plan add a login page')).toBe(true);
    expect(isSlashCommand('/usr/bin/env python3 tools/gen.py fails, why?')).toBe(false);
    expect(isSlashCommand('/tmp/x.log has the error')).toBe(false);
  });

  it('turns /plan and /local into a task with its mode, and asks for the task when it is missing', async () => {
    const t = await setup();
    expect(await t.commands.run('/plan add OAuth login')).toEqual({ start: { message: 'add OAuth login', options: { mode: 'plan' } } });
    expect(await t.commands.run('/local rename foo to bar')).toEqual({ start: { message: 'rename foo to bar', options: { to: 'junior' } } });
    expect(await t.commands.run('/chain fix-bug issue="it crashes" branch=main')).toEqual({
      start: { chain: 'fix-bug', inputs: { issue: 'it crashes', branch: 'main' } },
    });
    expect(await t.commands.run('/plan')).toBe('continue');
    expect(t.output.err).toContain('usage: /plan <task>');
  });

  it("lists, adds, removes and clears the workspace's shared notes with /memory", async () => {
    const t = await setup();
    await t.commands.run('/memory');
    expect(t.output.out).toContain('no notes yet');
    await t.commands.run('/memory add tests run with npm run test:unit');
    await t.commands.run('/memory add keep functions small');
    expect(t.gateway.notes.get('ws_1')?.map((n) => n.text)).toEqual(['tests run with npm run test:unit', 'keep functions small']);
    await t.commands.run('/memory');
    expect(t.output.out).toMatch(/note_1 {2}tests run with npm run test:unit {2}\(usr_1\)/);
    await t.commands.run('/memory rm note_1');
    await t.commands.run('/memory rm note_9');
    expect(t.output.err).toContain('Note note_9 not found');
    await t.commands.run('/memory clear');
    expect(t.output.out).toContain('removed 1 notes');
    expect(t.gateway.notes.get('ws_1')).toEqual([]);
  });

  it('quits on /quit and /exit and goes on after everything else', async () => {
    const t = await setup();
    expect(await t.commands.run('/quit')).toBe('quit');
    expect(await t.commands.run('/exit')).toBe('quit');
    expect(await t.commands.run('/help')).toBe('continue');
  });

  it('lists every command in /help', async () => {
    const t = await setup();
    await t.commands.run('/help');
    for (const command of ['/help', '/sessions', '/resume <id>', '/clear', '/permissions', '/plan <task>', '/local <task>', '/memory', '/chains', '/chain <name>', '/exit, /quit']) {
      expect(t.output.out).toContain(command);
    }
  });

  it('lists sessions newest first with a preview, marking the current one', async () => {
    const t = await setup({
      sessions: [
        { id: 'ses_2', workspaceId: 'ws_1', model: 'tiny', preview: 'fix the failing test' },
        { id: 'ses_3', workspaceId: 'ws_2', model: 'tiny', title: 'Release notes' },
      ],
    });
    await t.commands.run('/sessions');
    const lines = t.output.out.trimEnd().split('\n');
    expect(lines.map((line) => /ses_\d/.exec(line)?.[0])).toEqual(['ses_3', 'ses_2', 'ses_1']);
    expect(lines[0]).toContain('Release notes');
    expect(lines[1]).toContain('fix the failing test');
    expect(lines[2]).toMatch(/^● ses_1 {2}\(empty\)/);
  });

  it('resumes another session and shows its last answer', async () => {
    const t = await setup({
      sessions: [{ id: 'ses_2', workspaceId: 'ws_1', model: 'tiny', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello.' }] }],
    });
    await t.commands.run('/resume ses_2');
    expect(t.state.sessionId).toBe('ses_2');
    expect(t.output.out).toContain('resumed ses_2 · tiny · 2 messages');
    expect(t.output.out).toContain('last answer: Hello.');
  });

  it('keeps the current session when the one to resume does not exist', async () => {
    const t = await setup();
    expect(await t.commands.run('/resume ses_404')).toBe('continue');
    expect(t.state.sessionId).toBe('ses_1');
    expect(t.output.err).toContain('COMMON.NOT_FOUND');
  });

  it('asks for an id when /resume has none', async () => {
    const t = await setup();
    await t.commands.run('/resume');
    expect(t.output.err).toContain('usage: /resume <session id>');
  });

  it('starts a new session on the same workspace and model with /clear', async () => {
    const t = await setup({ sessions: [{ id: 'ses_2', workspaceId: 'ws_7', model: 'tiny' }] });
    t.state.sessionId = 'ses_2';
    await t.commands.run('/clear');
    expect(t.gateway.created).toEqual([{ id: 'ses_3', workspaceId: 'ws_7', model: 'tiny' }]);
    expect(t.state.sessionId).toBe('ses_3');
    expect(t.output.out).toContain('new session ses_3 · workspace ws_7 · model tiny');
  });

  it("shows the session's and the user's permission rules", async () => {
    const t = await setup({
      rules: {
        'session:ses_1': { allow: ['Bash(npm test)'] },
        user: { allow: ['Read(**)'], deny: ['Bash(curl:*)'] },
      },
    });
    await t.commands.run('/permissions');
    expect(t.output.out).toContain('session ses_1\n  allow  Bash(npm test)\n');
    expect(t.output.out).toContain('you (all your sessions)\n  deny   Bash(curl:*)\n  allow  Read(**)\n');
  });

  it('says so when a scope has no rules', async () => {
    const t = await setup();
    await t.commands.run('/permissions');
    expect(t.output.out).toContain('session ses_1\n  no rules\n');
  });

  it('names an unknown command', async () => {
    const t = await setup();
    expect(await t.commands.run('/frobnicate')).toBe('continue');
    expect(t.output.err).toContain('unknown command /frobnicate: /help lists them');
  });
});
