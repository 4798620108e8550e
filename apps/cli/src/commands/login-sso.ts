import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiCaller, apiRoutes } from '@weft/contracts';
import { ConfigStore } from '../config-store';
import { type CliContext, outColors } from '../context';
import { GatewayHttp } from '../gateway-http';

/** RFC 8628: on `slow_down` the client waits five seconds longer from then on. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * `weft login --url <gateway>` without a key: the device authorization grant through the
 * gateway's identity provider. The user confirms a code in any browser; the gateway then mints an
 * API key of the user's own, which is stored like a pasted one (mode 0600).
 */
export async function loginThroughProvider(ctx: CliContext, url: string, options: { keyName?: string; pollSeconds?: number } = {}): Promise<void> {
  // No credential yet: these two routes take none.
  const api = new ApiCaller(new GatewayHttp(url, ''));
  const c = outColors(ctx);
  const started = await api.json(apiRoutes.deviceSignIn, {});
  ctx.stdout.write(`To sign in, open ${c.bold(started.verificationUriComplete ?? started.verificationUri)}\n`);
  ctx.stdout.write(`and confirm the code ${c.bold(started.userCode)} (it expires in ${Math.round(started.expiresIn / 60)} min).\n`);
  let interval = options.pollSeconds ?? started.interval;
  const deadline = Date.now() + started.expiresIn * 1000;
  const keyName = options.keyName ?? `weft login on ${hostname()}`;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    const answer = await api.json(apiRoutes.deviceSignInPoll, { body: { handle: started.handle, keyName } });
    if (answer.status === 'pending') {
      if (answer.slowDown) interval += SLOW_DOWN_STEP_SECONDS;
      continue;
    }
    const store = new ConfigStore(ctx.env);
    await store.save({ url, key: answer.key });
    ctx.stdout.write(`${c.green('✓')} logged in to ${url} as ${c.bold(answer.user.name)} (${answer.user.id}) through your identity provider\n`);
    ctx.stdout.write(c.dim(`minted an API key of your own, "${keyName}" (${answer.keyId}; revoke it on the web page's Me page or with DELETE /v1/me/keys/${answer.keyId}), saved to ${store.path}\n`));
    return;
  }
  throw new Error(`The code ${started.userCode} was not confirmed in time; run weft login again`);
}
