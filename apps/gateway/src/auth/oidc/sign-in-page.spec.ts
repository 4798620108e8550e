import { describe, expect, it } from 'vitest';
import { signInRefusedPage } from './sign-in-page';

describe('the page of a refused or failed sign-in', () => {
  it('says a refused user that signing in again will not help and whom to ask', () => {
    const page = signInRefusedPage(true, 'Your account (eve) is in none of the groups allowed');
    expect(page).toContain('<h1>You may not sign in to this Weft</h1>');
    expect(page).toContain('<p id="reason">Your account (eve) is in none of the groups allowed</p>');
    expect(page).toContain('ask your Weft admin');
    expect(page).not.toContain('Sign in again');
  });

  it('offers a failed sign-in a fresh start', () => {
    const page = signInRefusedPage(false, 'Sign-in failed: the state does not match');
    expect(page).toContain('<h1>Sign-in failed</h1>');
    expect(page).toContain('<a class="button" href="/v1/auth/oidc/login">Sign in again</a>');
  });

  it('escapes the reason, which quotes what the provider and the claims said', () => {
    expect(signInRefusedPage(true, '<script>alert("x")</script> & more')).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
  });
});
