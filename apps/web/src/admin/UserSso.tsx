import type { SsoProfile } from '@weft/contracts';
import { formatInstant } from '../account/format';
import { roleFromText } from './UsersPanel';

/** What the identity provider gave a user at their last sign-in: groups, role source, quota class, model rules. */
export function UserSso({ sso }: { sso: SsoProfile | null }) {
  return (
    <section className="card" aria-labelledby="user-sso-heading">
      <h2 id="user-sso-heading">Single sign-on</h2>
      {sso ? (
        <dl>
          <dt>Email</dt>
          <dd>{sso.email ?? 'none'}</dd>
          <dt>Groups</dt>
          <dd>{sso.groups.length ? sso.groups.join(', ') : 'none'}</dd>
          <dt>Role</dt>
          <dd>{roleFromText(sso.roleFrom)}</dd>
          <dt>Quota class</dt>
          <dd>{Object.keys(sso.quotaClass).length ? Object.entries(sso.quotaClass).map(([field, value]) => `${field} ${value === 0 ? 'unlimited' : value}`).join(', ') : 'none (server defaults)'}</dd>
          <dt>Models</dt>
          <dd>{modelsText(sso.models)}</dd>
          <dt>Last sign-in</dt>
          <dd>{formatInstant(sso.signedInAt)}</dd>
        </dl>
      ) : (
        <p className="hint">Never signed in through the identity provider.</p>
      )}
    </section>
  );
}

function modelsText(models: SsoProfile['models']): string {
  if (!models) return 'every model';
  const allow = models.allow === null ? 'every model' : models.allow.join(', ') || 'none';
  return models.deny.length ? `${allow}, except ${models.deny.join(', ')}` : allow;
}
