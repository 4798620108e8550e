import { AppError } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { parseWorkspaceUpload } from './workspace-upload';
import { wildcardPath } from './workspace-responses';

describe('parseWorkspaceUpload', () => {
  it('takes {} or no body as an empty workspace', () => {
    expect(parseWorkspaceUpload('application/json', {})).toEqual({ kind: 'empty' });
    expect(parseWorkspaceUpload(undefined, undefined)).toEqual({ kind: 'empty' });
  });

  it('takes a gzip body as an archive', () => {
    const archive = Buffer.from([0x1f, 0x8b]);
    expect(parseWorkspaceUpload('application/gzip', archive)).toEqual({ kind: 'archive', archive });
  });

  it('rejects unknown fields, naming them', () => {
    expect(() => parseWorkspaceUpload('application/json', { name: 'x' })).toThrow(/name/);
  });

  it('rejects other content types and empty archives', () => {
    expect(() => parseWorkspaceUpload('text/plain', undefined)).toThrow(AppError);
    expect(() => parseWorkspaceUpload('application/gzip', Buffer.alloc(0))).toThrow(/empty/);
  });
});

describe('wildcardPath', () => {
  it('joins express 5 wildcard segments and defaults to the root', () => {
    expect(wildcardPath(['src', 'main.ts'])).toBe('src/main.ts');
    expect(wildcardPath(undefined)).toBe('.');
  });
});

describe('parseWorkspaceUpload with a git URL', () => {
  it('takes { git: { url, ref } }', () => {
    const git = { url: 'https://github.com/acme/app.git', ref: 'release/1.2' };
    expect(parseWorkspaceUpload('application/json', { git })).toEqual({ kind: 'git', git });
  });

  it.each([
    ['an ext:: transport', { url: 'ext::sh -c touch% /tmp/pwned' }],
    ['an option in place of the URL', { url: '--upload-pack=touch /tmp/pwned' }],
    ['scp-style syntax', { url: 'git@github.com:acme/app.git' }],
    ['a password in the URL', { url: 'https://me:secret@github.com/acme/app.git' }],
    ['an option in place of the ref', { url: 'https://github.com/acme/app.git', ref: '--upload-pack=x' }],
    ['a range as the ref', { url: 'https://github.com/acme/app.git', ref: 'main..dev' }],
  ])('refuses %s', (_name, git) => {
    expect(() => parseWorkspaceUpload('application/json', { git })).toThrow(AppError);
  });
});
