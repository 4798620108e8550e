import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiCaller, type CliSignInToken, apiRoutes } from '@weft/contracts';
import { type CliContext, outColors } from '../context';

/** How long the CLI waits for the browser to come back. */
const WAIT_MS = 10 * 60 * 1000;
const CALLBACK_PATH = '/callback';

/**
 * `weft login` through a browser, for a provider without the device grant: a one-shot server on
 * `http://127.0.0.1:<random port>/callback` receives the gateway's one-time code after the user
 * signs in at the provider, and the code is redeemed with the PKCE verifier only this process holds.
 */
export async function loginWithBrowser(ctx: CliContext, api: ApiCaller, gateway: string, keyName: string, open: boolean): Promise<CliSignInToken> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(24).toString('base64url');
  const loopback = await listenOnce(state);
  try {
    const url = new URL(apiRoutes.cliSignIn.path, gateway);
    url.search = new URLSearchParams({ redirect: loopback.redirect, challenge: createHash('sha256').update(verifier).digest('base64url'), state }).toString();
    const c = outColors(ctx);
    ctx.stdout.write(`To sign in, open ${c.bold(url.href)}\n`);
    ctx.stdout.write(c.dim(`in your browser${open ? ' (opening it)' : ''}; waiting on ${loopback.redirect} for it to come back\n`));
    if (open) openBrowser(url.href);
    const code = await loopback.code;
    return await api.json(apiRoutes.cliSignInToken, { body: { code, codeVerifier: verifier, keyName } });
  } finally {
    loopback.close();
  }
}

/** Serves one callback with the expected state; anything else is refused and the wait goes on. */
async function listenOnce(state: string): Promise<{ redirect: string; code: Promise<string>; close: () => void }> {
  let settle: { resolve: (code: string) => void; reject: (error: Error) => void } | undefined;
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== CALLBACK_PATH) return void res.writeHead(404).end();
    if (url.searchParams.get('state') !== state) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('This is not the sign-in weft login started; run it again.');
    const received = url.searchParams.get('code');
    if (!received) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('No code came back; run weft login again.');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Weft</title><p>Signed in: you can close this tab and go back to the terminal.</p>');
    settle?.resolve(received);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => settle?.reject(new Error('The browser did not come back within 10 minutes; run weft login again')), WAIT_MS);
  timer.unref();
  return {
    redirect: `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK_PATH}`,
    code,
    close: () => {
      clearTimeout(timer);
      server.close();
      server.closeAllConnections();
    },
  };
}

/** Best effort: where no browser can be opened (a server over SSH), the printed link is the way. */
function openBrowser(url: string): void {
  const [command, args] = process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '', url]] : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}
