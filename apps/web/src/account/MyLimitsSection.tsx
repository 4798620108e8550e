import { useCallback } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { formatCount } from './format';
import { LIMIT_FIELDS, describeLimit, usedShare } from './limits';
import { useLoad } from './use-load';

/** The quotas the gateway holds the user to, and how much of today's tokens are spent. */
export function MyLimitsSection({ account }: { account: AccountApi }) {
  const load = useCallback(() => account.myLimits(), [account]);
  const { data, error } = useLoad(load);
  const share = data ? usedShare(data.tokensUsedToday, data.limits.tokensPerDay) : null;

  return (
    <section className="card" aria-labelledby="my-limits-heading">
      <h2 id="my-limits-heading">My limits</h2>
      <ErrorMessage error={error} />
      {data === null && !error ? <p role="status">Loading…</p> : null}
      {data ? (
        <>
          <dl className="limits">
            {LIMIT_FIELDS.map(({ field, label }) => (
              <div key={field}>
                <dt>{label}</dt>
                <dd>{describeLimit(field, data.limits[field])}</dd>
              </div>
            ))}
          </dl>
          <p>
            Tokens today (UTC): <strong>{formatCount(data.tokensUsedToday)}</strong>
            {share === null ? ' (no daily limit)' : ` of ${formatCount(data.limits.tokensPerDay)}`}
          </p>
          {share === null ? null : <meter className="quota" min={0} max={1} low={0.75} high={0.9} optimum={0} value={share} aria-label="Share of today's tokens used" />}
          <p className="hint">Past a limit the gateway answers 429 and says when to try again; ask your admin for more.</p>
        </>
      ) : null}
    </section>
  );
}
