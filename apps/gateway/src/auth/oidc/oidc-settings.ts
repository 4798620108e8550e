import type { GatewaySettings } from '../../config';

/** The OIDC part of the gateway's config, present only when sign-in through a provider is on. */
export interface OidcSettings {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  scopes: string;
  redirectUrl: string | undefined;
  groupsClaim: string;
  allowedGroups: string[];
  allowedEmailDomains: string[];
  adminGroups: string[];
  /** Quota class per group (WEFT_OIDC_GROUP_LIMITS). */
  groupLimits: GatewaySettings['WEFT_OIDC_GROUP_LIMITS'];
  /** Model allow and deny lists per group (WEFT_OIDC_GROUP_MODELS). */
  groupModels: GatewaySettings['WEFT_OIDC_GROUP_MODELS'];
  sessionSeconds: number;
  /** The longest a browser session goes between refreshes at the provider. */
  refreshSeconds: number;
  allowHttp: boolean;
}

/** Undefined while WEFT_OIDC_ISSUER is unset; throws at boot, naming the variable, when the rest does not fit. */
export function oidcSettingsOf(config: GatewaySettings): OidcSettings | undefined {
  if (!config.WEFT_OIDC_ISSUER) return undefined;
  if (!config.WEFT_OIDC_CLIENT_ID) throw new Error('WEFT_OIDC_CLIENT_ID: required when WEFT_OIDC_ISSUER is set');
  const issuer = new URL(config.WEFT_OIDC_ISSUER);
  if (issuer.protocol !== 'https:' && !config.WEFT_OIDC_ALLOW_HTTP) {
    throw new Error(`WEFT_OIDC_ISSUER: ${issuer.href} is not https; set WEFT_OIDC_ALLOW_HTTP=true only for a local test provider`);
  }
  return {
    issuer,
    clientId: config.WEFT_OIDC_CLIENT_ID,
    clientSecret: config.WEFT_OIDC_CLIENT_SECRET,
    scopes: config.WEFT_OIDC_SCOPES,
    redirectUrl: config.WEFT_OIDC_REDIRECT_URL,
    groupsClaim: config.WEFT_OIDC_GROUPS_CLAIM,
    allowedGroups: config.WEFT_OIDC_ALLOWED_GROUPS,
    allowedEmailDomains: config.WEFT_OIDC_ALLOWED_EMAIL_DOMAINS.map((domain) => domain.toLowerCase().replace(/^@/, '')),
    adminGroups: config.WEFT_OIDC_ADMIN_GROUPS,
    groupLimits: config.WEFT_OIDC_GROUP_LIMITS,
    groupModels: config.WEFT_OIDC_GROUP_MODELS,
    sessionSeconds: Math.round(config.WEFT_OIDC_SESSION_HOURS * 3600),
    refreshSeconds: config.WEFT_OIDC_REFRESH_SECONDS,
    allowHttp: config.WEFT_OIDC_ALLOW_HTTP,
  };
}

/** Injection token of `OidcSettings | undefined`. */
export const OIDC_SETTINGS = Symbol('OIDC_SETTINGS');
