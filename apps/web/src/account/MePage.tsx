import type { AccountApi } from '../api/account-client';
import type { Me } from '../api/schemas';
import { InstructionsSection } from './InstructionsSection';
import { MyKeysSection } from './MyKeysSection';
import { MyLimitsSection } from './MyLimitsSection';
import { MyUsageSection } from './MyUsageSection';

/** `#/me`: what the signed-in user can see and change about themselves. */
export function MePage({ account, me }: { account: AccountApi; me: Me }) {
  return (
    <div className="page">
      <header className="page-head">
        <h1>Me</h1>
        <p className="hint">
          {me.name} · {me.role} · <code>{me.id}</code>
        </p>
      </header>
      <InstructionsSection account={account} />
      <MyKeysSection account={account} />
      <MyUsageSection account={account} />
      <MyLimitsSection account={account} />
    </div>
  );
}
