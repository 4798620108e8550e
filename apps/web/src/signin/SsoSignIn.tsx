import { SSO_SIGN_IN_URL } from './web-session';

/** Shown above the key form when the gateway offers sign-in through the team's identity provider. */
export function SsoSignIn() {
  return (
    <section className="centered login" aria-label="Single sign-on">
      <p>Sign in with your company account.</p>
      <a className="button" href={SSO_SIGN_IN_URL}>
        Sign in with SSO
      </a>
      <p className="hint">Or, below, with an API key (scripts and tools use keys; make one on the Me page once signed in).</p>
    </section>
  );
}
