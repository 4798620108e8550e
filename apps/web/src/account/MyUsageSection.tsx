import { useCallback, useState } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { lastDays } from './usage';
import { UsageRangeForm } from './UsageRangeForm';
import { UsageTable } from './UsageTable';
import { useLoad } from './use-load';

/** The user's usage per UTC day and model over a range. */
export function MyUsageSection({ account }: { account: AccountApi }) {
  const [range, setRange] = useState(() => lastDays(30));
  const load = useCallback(() => account.myUsage(range), [account, range]);
  const { data: usage, error } = useLoad(load);

  return (
    <section className="card" aria-labelledby="my-usage-heading">
      <h2 id="my-usage-heading">My usage</h2>
      <UsageRangeForm range={range} onChange={setRange} />
      <ErrorMessage error={error} />
      {usage === null && !error ? <p role="status">Loading…</p> : null}
      {usage ? (
        <>
          <p className="hint" role="status">
            {usage.from} to {usage.to}, UTC days.
          </p>
          <UsageTable rows={usage.rows} totals={usage.totals} caption={`My usage from ${usage.from} to ${usage.to}`} />
        </>
      ) : null}
    </section>
  );
}
