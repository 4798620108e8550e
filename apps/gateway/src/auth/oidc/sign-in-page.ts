/** The page a browser lands on when sign-in is refused: it came by redirect, so it gets HTML, not JSON. */
export function signInRefusedPage(title: string, reason: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Weft: ${escapeHtml(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}a{color:#2563eb}</style>
</head><body><h1>${escapeHtml(title)}</h1><p id="reason">${escapeHtml(reason)}</p><p><a href="/">Back to Weft</a></p></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}
