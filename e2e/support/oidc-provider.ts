import { type IdTokenTamperName, TAMPER_CONTROL_PATH, gatewaySettingsFor } from '../../test/support/oidc-test-provider';
import { compose, composeWith, gatewayUrl, stackEnv } from './stack';

/**
 * The stack's gateway signing people in through a real OpenID provider in a container of its own
 * (oidc-provider.compose.yml), for one e2e file: the provider joins the stack and the gateway is
 * recreated with the WEFT_OIDC_* settings; `stopSso` puts the gateway back as the other files expect it.
 */
const port = Number(stackEnv.WEFT_PORT) + 2000;

/** The issuer, the same URL for the gateway (compose's DNS) and Chromium (`ssoChromiumArgs`). */
export const oidcIssuer = `http://oidc:${port}`;
/** Chromium resolves the provider's name to its port published on this host. */
export const ssoChromiumArgs = [`--host-resolver-rules=MAP oidc 127.0.0.1`];
export const callbackUrl = `${gatewayUrl}/v1/auth/oidc/callback`;

/** The test's own way in, for the tamper switch (this host does not resolve `oidc`). */
const controlUrl = `http://127.0.0.1:${port}${TAMPER_CONTROL_PATH}`;
const WAIT_MS = 120_000;

function ssoEnv(settings: Record<string, string>): Record<string, string> {
  return {
    ...stackEnv,
    COMPOSE_FILE: `${stackEnv.COMPOSE_FILE}:e2e/support/oidc-provider.compose.yml`,
    WEFT_OIDC_E2E_PORT: String(port),
    ...gatewaySettingsFor(oidcIssuer),
    WEFT_OIDC_REDIRECT_URL: callbackUrl,
    ...settings,
  };
}

/** Starts the provider and recreates the gateway with `settings` (WEFT_OIDC_*) on top of the provider's. */
export async function startSso(settings: Record<string, string>): Promise<void> {
  composeWith(ssoEnv(settings), 'up', '-d', '--no-deps', 'oidc', 'gateway');
  await until('the provider to answer', async () => (await fetch(`http://127.0.0.1:${port}/.well-known/openid-configuration`)).ok);
  await until('the gateway to offer SSO', () => gatewayOffersSso(true));
}

/** Removes the provider and gives the gateway back its settings without SSO. */
export async function stopSso(): Promise<void> {
  composeWith(ssoEnv({}), 'rm', '--stop', '--force', 'oidc');
  compose('up', '-d', '--no-deps', 'gateway');
  await until('the gateway to be back without SSO', () => gatewayOffersSso(false));
}

/** The provider's next ID tokens come tampered with (expired, or signed with a key it never published), until `undefined`. */
export async function tamperIdTokens(name: IdTokenTamperName | undefined): Promise<void> {
  const res = await fetch(name ? `${controlUrl}/${name}` : controlUrl, { method: name ? 'PUT' : 'DELETE' });
  if (res.status !== 204) throw new Error(`the test provider refused the tamper switch: HTTP ${res.status} ${await res.text()}`);
}

/** The recreated gateway is ready (Redis and NATS reached) and says whether it offers SSO. */
async function gatewayOffersSso(on: boolean): Promise<boolean> {
  if (!(await fetch(`${gatewayUrl}/readyz`)).ok) return false;
  const res = await fetch(`${gatewayUrl}/v1/auth/session`);
  return res.ok && ((await res.json()) as { oidc: boolean }).oidc === on;
}

async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  let last = '';
  while (Date.now() < deadline) {
    try {
      if (await done()) return;
    } catch (error) {
      // not up yet: the container is being created or the gateway replaced
      last = String(error);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`timed out waiting for ${what} (${last})`);
}
