import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { assertGitHostAllowed } from './git-hosts';
import { parseWorkspaceUpload } from './workspace-upload';

describe('assertGitHostAllowed', () => {
  it('lets a listed host through, whatever its case and port', () => {
    expect(() => assertGitHostAllowed('https://GitHub.com:443/acme/app.git', ['github.com'])).not.toThrow();
    expect(() => assertGitHostAllowed('file:///srv/mirrors/app.git', ['file'])).not.toThrow();
  });

  it('refuses a host not on the list with 403, naming it', () => {
    expect(() => assertGitHostAllowed('https://evil.example/app.git', ['github.com'])).toThrow(
      expect.objectContaining({ code: ErrorCode.Forbidden, message: expect.stringContaining("'evil.example'") }),
    );
  });

  it('refuses a sibling that only shares a suffix', () => {
    expect(() => assertGitHostAllowed('https://notgithub.com/app.git', ['github.com'])).toThrow(/notgithub\.com/);
  });

  it('refuses everything when the list is empty', () => {
    expect(() => assertGitHostAllowed('https://github.com/acme/app.git', [])).toThrow(/disabled/);
  });
});

describe('credentials in a git URL', () => {
  const token = 'ghp_tok3nThatMustNeverShow';

  it.each([
    ['a token as the user name', `https://${token}@github.com/acme/app.git`],
    ['a user name and password', `https://me:${token}@github.com/acme/app.git`],
    ['a user name alone', `ssh://${token}@github.com/acme/app.git`],
  ])('refuses %s with 400, never repeating it', (_name, url) => {
    let error: unknown;
    try {
      parseWorkspaceUpload('application/json', { git: { url } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, message: expect.stringContaining('user name or password') });
    expect(JSON.stringify(error)).not.toContain(token);
    expect((error as Error).message).not.toContain(token);
  });

  it('names a refused host without the password of a URL it cannot read', () => {
    expect(() => assertGitHostAllowed(`https://me:${token}@github.com/x.git`, ['gitlab.com'])).toThrow(expect.objectContaining({ message: expect.not.stringContaining(token) }));
  });
});
