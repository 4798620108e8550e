import { describe, expect, it } from 'vitest';
import { MAX_ARGS_CHARS, maskSecrets, outcomeOf, summarizeArgs } from './audit-args';

const call = (name: string, args: Record<string, unknown>) => ({ id: 'call_1', name, arguments: args });

describe('summarizeArgs', () => {
  it('keeps the size of file contents, never the contents', () => {
    expect(summarizeArgs(call('write_file', { path: 'a.txt', content: 'private words' }))).toBe('path="a.txt" content=<15 chars>');
    expect(summarizeArgs(call('edit_file', { path: 'a.txt', edits: [{ old: 'x', new: 'secret' }] }))).not.toContain('secret');
  });

  it('cuts a long command to the summary limit', () => {
    const summary = summarizeArgs(call('run_command', { command: `echo ${'x'.repeat(1000)}` }));
    expect(summary.length).toBe(MAX_ARGS_CHARS);
    expect(summary.endsWith('…')).toBe(true);
  });

  it('masks keys, tokens, passwords and credentials in URLs', () => {
    expect(maskSecrets('curl -H "Authorization: Bearer abcdefghijklmnop" https://bob:pa55w0rd@example.com')).toBe(
      'curl -H "Authorization: *** ***" https://***@example.com',
    );
    expect(maskSecrets('OPENAI_API_KEY=sk-abcdefghijkl123 npm test')).toBe('OPENAI_API_KEY=*** npm test');
    expect(maskSecrets('export PGPASSWORD=hunter2 && psql')).toBe('export PGPASSWORD=*** && psql');
    expect(maskSecrets('use weft_abcdefghijklmnopqrstuvwxyz please')).toBe('use weft_*** please');
    expect(maskSecrets('mysql --password secret')).toBe('mysql --password ***');
    expect(maskSecrets('pytest tests/test_auth.py -q')).toBe('pytest tests/test_auth.py -q');
  });
});

describe('outcomeOf', () => {
  it('reads the exit code of a command, the code of a refusal', () => {
    expect(outcomeOf(false, 'exit code: 0\nstdout:\nok')).toEqual({ outcome: 'ok', exitCode: 0 });
    expect(outcomeOf(true, 'exit code: 2\nstdout:\n')).toEqual({ outcome: 'error', exitCode: 2 });
    expect(outcomeOf(true, 'AGENT.PERMISSION_DENIED: the user denied this call')).toEqual({ outcome: 'denied', errorCode: 'AGENT.PERMISSION_DENIED' });
    expect(outcomeOf(true, 'TOOLS.FILE_NOT_FOUND: No such file: a')).toEqual({ outcome: 'error', errorCode: 'TOOLS.FILE_NOT_FOUND' });
  });
});
