import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { formatCount } from '../account/format';
import { LIMIT_FIELDS, type LimitField, type LimitForm, describeLimit, limitForm, overridesFromForm } from '../account/limits';
import type { UserLimits } from '../account/types';
import { useLoad } from '../account/use-load';

/** A user's quotas: the server default, this user's override (empty: the default), what applies. */
export function UserLimitsForm({ account, userId, userName }: { account: AccountApi; userId: string; userName: string }) {
  const load = useCallback(() => account.userLimits(userId), [account, userId]);
  const { data, error: loadError } = useLoad(load);
  const [limits, setLimits] = useState<UserLimits | null>(null);
  const [form, setForm] = useState<LimitForm | null>(null);
  const [problems, setProblems] = useState<Partial<Record<LimitField, string>>>({});
  const [notice, setNotice] = useState('');

  useEffect(() => {
    if (!data) return;
    setLimits(data);
    setForm(limitForm(data.overrides));
  }, [data]);

  const { busy, error, run: saveOverrides } = useAction(async (overrides: Parameters<AccountApi['setUserLimits']>[1]) => {
    const saved = await account.setUserLimits(userId, overrides);
    setLimits(saved);
    setForm(limitForm(saved.overrides));
    setNotice('Saved: the new limits apply from the next request.');
  });

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (!form) return;
    const read = overridesFromForm(form);
    if ('errors' in read) {
      setProblems(read.errors);
      return;
    }
    setProblems({});
    void saveOverrides(read.overrides);
  };

  return (
    <section className="card" aria-labelledby="limits-heading">
      <h2 id="limits-heading">Quotas of {userName}</h2>
      <ErrorMessage error={loadError} />
      {limits && form ? (
        <form onSubmit={save}>
          <div className="table-scroll">
            <table className="data limits-table">
              <caption className="visually-hidden">Quotas of {userName}</caption>
              <thead>
                <tr>
                  <th scope="col">Quota</th>
                  <th scope="col" className="num">
                    Default
                  </th>
                  <th scope="col">Override</th>
                  <th scope="col" className="num">
                    In effect
                  </th>
                </tr>
              </thead>
              <tbody>
                {LIMIT_FIELDS.map(({ field, label }) => (
                  <tr key={field}>
                    <th scope="row">
                      <label htmlFor={`limit-${field}`}>{label}</label>
                    </th>
                    <td className="num">{describeLimit(field, limits.defaults[field])}</td>
                    <td>
                      <input
                        id={`limit-${field}`}
                        className="limit-input"
                        inputMode="numeric"
                        placeholder="default"
                        value={form[field]}
                        aria-invalid={problems[field] ? true : undefined}
                        aria-describedby={problems[field] ? `limit-${field}-problem` : undefined}
                        onChange={(e) => setForm({ ...form, [field]: e.target.value })}
                      />
                      {problems[field] ? (
                        <span id={`limit-${field}-problem`} className="field-problem">
                          {problems[field]}
                        </span>
                      ) : null}
                    </td>
                    <td className="num">{describeLimit(field, limits.effective[field])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p className="hint">Empty: the server default. 0 turns a quota off. Tokens used today (UTC): {formatCount(limits.tokensUsedToday)}.</p>
          <div className="row wrap">
            <button type="submit" disabled={busy}>
              Save quotas
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => setForm(limitForm({}))}>
              Clear all overrides
            </button>
          </div>
        </form>
      ) : !loadError ? (
        <p role="status">Loading…</p>
      ) : null}
      <ErrorMessage error={error} prefix="Not saved." />
      <p className="hint" role="status">
        {notice}
      </p>
    </section>
  );
}
