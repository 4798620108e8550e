import type { OidcSettings } from './oidc-settings';
import type { IdTokenClaims } from './oidc-provider-client';

/** Who the provider says signed in, as Weft reads the claims. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  displayName: string;
  groups: string[];
}

/** The identity, or why the gateway's settings turn it away. */
export type Admission = { admitted: true; identity: OidcIdentity } | { admitted: false; reason: string };

export function identityOf(claims: IdTokenClaims, settings: OidcSettings): OidcIdentity {
  const email = typeof claims.email === 'string' && claims.email !== '' ? claims.email : undefined;
  const displayName = [claims.preferred_username, email, claims.name, claims.sub].find((v): v is string => typeof v === 'string' && v.trim() !== '') ?? claims.sub;
  return { issuer: claims.iss, subject: claims.sub, email, displayName: displayName.trim(), groups: groupsOf(claims[settings.groupsClaim]) };
}

/** Applies WEFT_OIDC_ALLOWED_EMAIL_DOMAINS and WEFT_OIDC_ALLOWED_GROUPS. */
export function admit(claims: IdTokenClaims, settings: OidcSettings): Admission {
  const identity = identityOf(claims, settings);
  if (settings.allowedEmailDomains.length > 0) {
    const domain = identity.email?.split('@').pop()?.toLowerCase();
    if (!identity.email || claims.email_verified === false || !domain || !settings.allowedEmailDomains.includes(domain)) {
      return { admitted: false, reason: `Your account (${identity.email ?? 'no email'}${claims.email_verified === false ? ', not verified' : ''}) is not in a domain allowed to use this Weft: ${settings.allowedEmailDomains.join(', ')}.` };
    }
  }
  if (settings.allowedGroups.length > 0 && !identity.groups.some((group) => settings.allowedGroups.includes(group))) {
    return { admitted: false, reason: `Your account (${identity.displayName}) is in none of the groups allowed to use this Weft (${settings.allowedGroups.join(', ')}). Ask your admin to add you to one.` };
  }
  return { admitted: true, identity };
}

/** A groups claim is a list of strings (some providers send one string). */
function groupsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value)) return [];
  return value.filter((group): group is string => typeof group === 'string');
}
