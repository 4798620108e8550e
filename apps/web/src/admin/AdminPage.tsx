import type { AccountApi } from '../api/account-client';
import type { Me } from '../api/schemas';
import { ADMIN_TABS, type AdminTab, adminHref } from '../route';
import { AdminAudit } from './AdminAudit';
import { AdminUsage } from './AdminUsage';
import { FleetPanel } from './FleetPanel';
import { ModelsPanel } from './ModelsPanel';
import { UserDetail } from './UserDetail';
import { UsersPanel } from './UsersPanel';

const TAB_LABELS: Record<AdminTab, string> = { users: 'Users', usage: 'Usage', audit: 'Audit', fleet: 'Fleet' };

/** `#/admin`: users, their keys and quotas, everyone's usage, the audit trail, the inference fleet; for admin users only. */
export function AdminPage({ account, me, tab, userId }: { account: AccountApi; me: Me; tab: AdminTab; userId?: string }) {
  if (me.role !== 'admin') {
    return (
      <div className="page">
        <h1>Admin</h1>
        <p className="notice warning" role="alert">
          This page is for admin users. You are signed in as {me.name}, a member: ask one of your team’s admins to change users, keys or quotas. Your own keys, usage and limits are on <a href="#/me">your page</a>.
        </p>
      </div>
    );
  }
  return (
    <div className="page">
      <header className="page-head">
        <h1>Admin</h1>
        <nav aria-label="Admin" className="tabs">
          {ADMIN_TABS.map((t) => (
            <a key={t} href={adminHref(t)} aria-current={t === tab ? 'page' : undefined}>
              {TAB_LABELS[t]}
            </a>
          ))}
        </nav>
      </header>
      {tab === 'users' ? userId ? <UserDetail key={userId} account={account} userId={userId} me={me} /> : <UsersPanel account={account} /> : null}
      {tab === 'usage' ? <AdminUsage account={account} /> : null}
      {tab === 'audit' ? <AdminAudit account={account} /> : null}
      {tab === 'fleet' ? <FleetPanel account={account} /> : null}
      {tab === 'fleet' ? <ModelsPanel /> : null}
    </div>
  );
}
