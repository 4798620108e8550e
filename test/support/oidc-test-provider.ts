import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWK, SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose';
import Provider from 'oidc-provider';

/** A person at the test provider: the login name is the subject. */
export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
}

/** Rewrites the ID token the token endpoint answers with, to see the gateway refuse it. */
/** The people the OIDC tests sign in as: an admin, a member, and one outside Weft's groups. */
export const TEST_ACCOUNTS = {
  ada: { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['weft-admins', 'weft-users'] },
  bob: { email: 'bob@example.com', name: 'Bob Byte', groups: ['weft-users'] },
  eve: { email: 'eve@example.com', name: 'Eve Outside', groups: ['contractors'] },
} satisfies Record<string, TestAccount>;

export type IdTokenTamper = (idToken: string) => Promise<string>;

export interface OidcTestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The gateway's settings that point it at this provider (over plain HTTP, asking for the groups). */
  gatewaySettings: Record<string, string>;
  /** Registers the client with its redirect URL; sign-ins work from then on. */
  registerClient(redirectUri: string): void;
  /** The next token answers carry the tampered ID token, until called with undefined. */
  tamperIdTokens(tamper: IdTokenTamper | undefined): void;
  /** Re-signs an ID token with the provider's own key, claims changed. */
  resign(idToken: string, change: Record<string, unknown>): Promise<string>;
  /** Signs the same claims with a key the provider never published (same `kid`). */
  signWithForeignKey(idToken: string): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A real, certified OpenID provider (panva's `oidc-provider`) on a random local port, with its
 * development login form (any password) and the given accounts. The client is registered once
 * the relying party's redirect URL is known (the gateway starts after the provider's port is).
 */
export async function startOidcTestProvider(accounts: Record<string, TestAccount>): Promise<OidcTestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('the test provider has no client yet');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
  const clientId = 'weft-test';
  const clientSecret = 'weft-test-secret-0123456789';
  let tamper: IdTokenTamper | undefined;

  const registerClient = (redirectUri: string) => {
    const provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'], response_types: ['code'] }],
      jwks: { keys: [signingJwk as never] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], groups: ['groups'] },
      scopes: ['openid', 'profile', 'email', 'groups'],
      // The claims go into the ID token itself, as Keycloak, Entra ID and Okta put them.
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      // A refresh token with every sign-in (as Keycloak gives by default): the gateway refreshes browser sessions with it.
      issueRefreshToken: () => true,
      // `weft login`: the device authorization grant (RFC 8628).
      features: { deviceFlow: { enabled: true } },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      findAccount: (_ctx, id) => {
        const account = accounts[id];
        if (!account) return undefined;
        return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: true, name: account.name, preferred_username: id, groups: account.groups }) };
      },
    });
    provider.use(async (ctx, next) => {
      await next();
      const body = ctx.body as { id_token?: unknown } | undefined;
      if (tamper && ctx.path === '/token' && body && typeof body.id_token === 'string') ctx.body = { ...body, id_token: await tamper(body.id_token) };
    });
    handler = provider.callback();
  };

  return {
    issuer,
    clientId,
    clientSecret,
    gatewaySettings: {
      WEFT_OIDC_ISSUER: issuer,
      WEFT_OIDC_CLIENT_ID: clientId,
      WEFT_OIDC_CLIENT_SECRET: clientSecret,
      WEFT_OIDC_SCOPES: 'openid profile email groups',
      WEFT_OIDC_ALLOW_HTTP: 'true',
    },
    registerClient,
    tamperIdTokens: (next) => {
      tamper = next;
    },
    resign: async (idToken, change) => sign({ ...decodeJwt(idToken), ...change }, decodeProtectedHeader(idToken).kid, await importJWK(signingJwk, 'RS256')),
    signWithForeignKey: async (idToken) => sign(decodeJwt(idToken), decodeProtectedHeader(idToken).kid, (await generateKeyPair('RS256')).privateKey),
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function sign(claims: Record<string, unknown>, kid: string | undefined, key: Parameters<SignJWT['sign']>[0]): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) }).sign(key);
}
