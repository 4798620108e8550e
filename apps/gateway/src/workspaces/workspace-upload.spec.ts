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
