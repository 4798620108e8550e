import { describe, expect, it } from 'vitest';
import { encodeJob } from './runner-protocol';

function decode(job: Buffer): { argv: string[]; stdin: string } {
  const newline = job.indexOf(0x0a);
  const argv = Buffer.from(job.subarray(0, newline).toString('ascii'), 'base64').toString('utf8').split('\0');
  expect(argv.pop()).toBe('');
  return { argv, stdin: job.subarray(newline + 1).toString('utf8') };
}

describe('encodeJob', () => {
  it('puts the argv on one base64 line and the stdin after it untouched', () => {
    const code = 'print("a\\nb")\nprint(2)  # é';
    const job = encodeJob(['python3', '-c', code], 'line 1\nline 2\n');
    expect(job.subarray(0, job.indexOf(0x0a)).toString('ascii')).toMatch(/^[A-Za-z0-9+/=]+$/);
    expect(decode(job)).toEqual({ argv: ['python3', '-c', code], stdin: 'line 1\nline 2\n' });
  });

  it('keeps empty arguments and an empty stdin', () => {
    expect(decode(encodeJob(['bash', '-c', '', '']))).toEqual({ argv: ['bash', '-c', '', ''], stdin: '' });
  });

  it('refuses an empty argv and an argument with a NUL byte', () => {
    expect(() => encodeJob([])).toThrow();
    expect(() => encodeJob(['bash', '-c', 'a\0b'])).toThrow(/NUL/);
  });
});
