/**
 * The page a browser lands on when sign-in is refused (403: the settings turn the user away) or
 * fails (401: a check of the callback did not hold). It came by redirect, so it gets HTML, not
 * JSON: what happened, why, and what the person can do next, in the web page's colours.
 */
export function signInRefusedPage(refused: boolean, reason: string): string {
  const title = refused ? 'You may not sign in to this Weft' : 'Sign-in failed';
  const next = refused
    ? 'Signing in again with the same account gives the same answer. If you should have access, ask your Weft admin to let your account in (at the identity provider, or in Weft’s SSO settings), then sign in again.'
    : 'Nothing was signed in. A sign-in page left open too long, used twice or finished in another browser ends this way, and starting again usually works. If it keeps failing, tell your Weft admin what this page says.';
  const actions = refused ? '<a href="/">Back to Weft</a>' : '<a class="button" href="/v1/auth/oidc/login">Sign in again</a> <a href="/">Back to Weft</a>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weft: ${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<style>
body{margin:0;background:#f6f7f9;color:#1b1f24;font:15px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif}
main{max-width:36rem;margin:4rem auto;padding:1.5rem 1.75rem;background:#fff;border:1px solid #d0d7de;border-top:4px solid #b42318;border-radius:6px}
.brand{margin:0 0 .75rem;font-weight:700;color:#57606a}
h1{margin:0 0 .75rem;font-size:1.3rem}
#reason{margin:0 0 1rem;padding:.6rem .8rem;background:#fdf2f1;border-radius:6px}
.next{margin:0 0 1.25rem;color:#57606a}
.actions{margin:0;display:flex;gap:1rem;align-items:center}
a{color:#0b57d0}
a.button{background:#0b57d0;color:#fff;padding:.45rem .9rem;border-radius:6px;text-decoration:none}
</style>
</head><body><main>
<p class="brand">Weft</p>
<h1>${escapeHtml(title)}</h1>
<p id="reason">${escapeHtml(reason)}</p>
<p class="next">${next}</p>
<p class="actions">${actions}</p>
</main></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
