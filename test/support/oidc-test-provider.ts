import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type JWK, SignJWT, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, importJWK } from 'jose';
import Provider from 'oidc-provider';

// Node runs this file as is in the e2e tier's provider container (e2e/support/oidc-provider-server.mjs):
// it imports packages only, and uses only TypeScript that Node's type stripping erases.

/** A person at the test provider: the login name is the subject. */
export interface TestAccount {
  email: string;
  name: string;
  groups: string[];
}

/** The people the OIDC tests sign in as: an admin, a member, and one outside Weft's groups. */
export const TEST_ACCOUNTS = {
  ada: { email: 'ada@example.com', name: 'Ada Lovelace', groups: ['weft-admins', 'weft-users'] },
  bob: { email: 'bob@example.com', name: 'Bob Byte', groups: ['weft-users'] },
  eve: { email: 'eve@example.com', name: 'Eve Outside', groups: ['contractors'] },
} satisfies Record<string, TestAccount>;

/** Rewrites the ID token the token endpoint answers with, to see the gateway refuse it. */
export type IdTokenTamper = (idToken: string) => Promise<string>;

/** The tampered ID tokens a test can ask for over HTTP (`control`), by name. */
export const ID_TOKEN_TAMPERS = ['expired', 'foreign-key'] as const;
export type IdTokenTamperName = (typeof ID_TOKEN_TAMPERS)[number];

/** `PUT <issuer>/test/id-token-tamper/<name>` turns one on, `DELETE <issuer>/test/id-token-tamper` off. */
export const TAMPER_CONTROL_PATH = '/test/id-token-tamper';

export interface OidcTestProviderOptions {
  /** Where to listen: 127.0.0.1 and a free port unless given (a container listens on 0.0.0.0). */
  host?: string;
  port?: number;
  /** The issuer clients know it by, when not its listening address (a container's published name). */
  issuer?: string;
  /** Serves TAMPER_CONTROL_PATH, for a test that runs the provider in another process. */
  control?: boolean;
}

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

const CLIENT_ID = 'weft-test';
const CLIENT_SECRET = 'weft-test-secret-0123456789';

/** The gateway's settings for a test provider at `issuer`. */
export function gatewaySettingsFor(issuer: string): Record<string, string> {
  return {
    WEFT_OIDC_ISSUER: issuer,
    WEFT_OIDC_CLIENT_ID: CLIENT_ID,
    WEFT_OIDC_CLIENT_SECRET: CLIENT_SECRET,
    WEFT_OIDC_SCOPES: 'openid profile email groups',
    WEFT_OIDC_ALLOW_HTTP: 'true',
  };
}

/**
 * A real, certified OpenID provider (panva's `oidc-provider`) with its development login form
 * (any password) and the given accounts, on a random local port unless told where. The client is
 * registered once the relying party's redirect URL is known (the gateway starts after the provider's port is).
 */
export async function startOidcTestProvider(accounts: Record<string, TestAccount>, options: OidcTestProviderOptions = {}): Promise<OidcTestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let tamper: IdTokenTamper | undefined;
  const server: Server = createServer((req, res) => {
    if (options.control && req.url?.startsWith(TAMPER_CONTROL_PATH)) controlTamper(req, res);
    else if (handler) handler(req, res);
    else res.writeHead(503).end('the test provider has no client yet');
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const issuer = options.issuer ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingJwk: JWK = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };

  const resign = async (idToken: string, change: Record<string, unknown>) => sign({ ...decodeJwt(idToken), ...change }, decodeProtectedHeader(idToken).kid, await importJWK(signingJwk, 'RS256'));
  const signWithForeignKey = async (idToken: string) => sign(decodeJwt(idToken), decodeProtectedHeader(idToken).kid, (await generateKeyPair('RS256')).privateKey);
  const named: Record<IdTokenTamperName, IdTokenTamper> = {
    // Issued two hours ago, expired one hour ago, validly signed.
    expired: (token) => {
      const now = Math.floor(Date.now() / 1000);
      return resign(token, { iat: now - 7200, exp: now - 3600 });
    },
    'foreign-key': signWithForeignKey,
  };

  function controlTamper(req: IncomingMessage, res: ServerResponse): void {
    const name = req.url?.slice(TAMPER_CONTROL_PATH.length + 1) ?? '';
    if (req.method === 'DELETE' && name === '') tamper = undefined;
    else if (req.method === 'PUT' && (ID_TOKEN_TAMPERS as readonly string[]).includes(name)) tamper = named[name as IdTokenTamperName];
    else return void res.writeHead(400).end(`PUT ${TAMPER_CONTROL_PATH}/<${ID_TOKEN_TAMPERS.join('|')}> or DELETE ${TAMPER_CONTROL_PATH}`);
    res.writeHead(204).end();
  }

  const registerClient = (redirectUri: string) => {
    const provider = new Provider(issuer, {
      clients: [{ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, redirect_uris: [redirectUri], grant_types: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'], response_types: ['code'] }],
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
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    gatewaySettings: gatewaySettingsFor(issuer),
    registerClient,
    tamperIdTokens: (next) => {
      tamper = next;
    },
    resign,
    signWithForeignKey,
    stop: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

function sign(claims: Record<string, unknown>, kid: string | undefined, key: Parameters<SignJWT['sign']>[0]): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) }).sign(key);
}
