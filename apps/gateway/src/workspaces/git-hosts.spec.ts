import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { assertGitHostAllowed } from './git-hosts';

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
