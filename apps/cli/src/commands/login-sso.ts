import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiCaller, type CliSignInToken, type DeviceSignInStart, apiRoutes } from '@weft/contracts';
import { ConfigStore } from '../config-store';
import { type CliContext, outColors } from '../context';
import { ApiError } from '../errors';
import { GatewayHttp } from '../gateway-http';
import { loginWithBrowser } from './login-loopback';

/** RFC 8628: on `slow_down` the client waits five seconds longer from then on. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** `auto`: the device grant where the provider offers it, else the browser on a loopback redirect. */
export type SignInMethod = 'auto' | 'device' | 'browser';

export interface ProviderLoginOptions {
  keyName?: string;
  pollSeconds?: number;
  method?: SignInMethod;
  /** Open the browser for the loopback sign-in (else only print the link). */
  open?: boolean;
}

/**
 * `weft login --url <gateway>` without a key: sign-in through the gateway's identity provider,
 * with the device authorization grant (the user confirms a code in any browser) or, where the
 * provider has none, a browser on a loopback redirect. Either way the gateway mints an API key of
 * the user's own, stored like a pasted one (mode 0600); the CLI says which way it went.
 */
export async function loginThroughProvider(ctx: CliContext, url: string, options: ProviderLoginOptions = {}): Promise<void> {
  // No credential yet: these routes take none.
  const api = new ApiCaller(new GatewayHttp(url, ''));
  const keyName = options.keyName ?? `weft login on ${hostname()}`;
  const method = options.method ?? 'auto';
  const device = method === 'browser' ? undefined : await startDevice(api, method);
  const minted = device
    ? await pollDevice(ctx, api, device, keyName, options.pollSeconds ?? device.interval)
    : await loginWithBrowser(ctx, api, url, keyName, options.open ?? true);
  const store = new ConfigStore(ctx.env);
  await store.save({ url, key: minted.key });
  const c = outColors(ctx);
  const how = device ? 'the device code' : 'a browser sign-in on a loopback redirect';
  ctx.stdout.write(`${c.green('✓')} logged in to ${url} as ${c.bold(minted.user.name)} (${minted.user.id}) through your identity provider, with ${how}\n`);
  ctx.stdout.write(
    c.dim(`minted an API key of your own, "${keyName}" (${minted.keyId}; revoke it on the web page's Me page or with DELETE /v1/me/keys/${minted.keyId}), saved to ${store.path} (mode 0600)\n`),
  );
}

/** Undefined when the provider offers no device grant and `auto` may fall back to the browser. */
async function startDevice(api: ApiCaller, method: SignInMethod): Promise<DeviceSignInStart | undefined> {
  try {
    return await api.json(apiRoutes.deviceSignIn, {});
  } catch (error) {
    if (method === 'auto' && error instanceof ApiError && error.details?.deviceGrant === false) return undefined;
    throw error;
  }
}

async function pollDevice(ctx: CliContext, api: ApiCaller, started: DeviceSignInStart, keyName: string, pollSeconds: number): Promise<CliSignInToken> {
  const c = outColors(ctx);
  ctx.stdout.write(`To sign in, open ${c.bold(started.verificationUriComplete ?? started.verificationUri)}\n`);
  ctx.stdout.write(`and confirm the code ${c.bold(started.userCode)} (it expires in ${Math.round(started.expiresIn / 60)} min).\n`);
  let interval = pollSeconds;
  const deadline = Date.now() + started.expiresIn * 1000;
  while (Date.now() < deadline) {
    await sleep(interval * 1000);
    const answer = await api.json(apiRoutes.deviceSignInPoll, { body: { handle: started.handle, keyName } });
    if (answer.status === 'done') return answer;
    if (answer.slowDown) interval += SLOW_DOWN_STEP_SECONDS;
  }
  throw new Error(`The code ${started.userCode} was not confirmed in time; run weft login again`);
}
