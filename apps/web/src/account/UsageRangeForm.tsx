import { type FormEvent, type ReactNode, useId, useState } from 'react';
import { type DayRange, lastDays, rangeProblem } from './usage';

const PRESETS = [7, 30, 90] as const;

/** First and last day (UTC, inclusive), with quick picks; `children` adds the admin's filters. */
export function UsageRangeForm({ range, onChange, children }: { range: DayRange; onChange: (range: DayRange) => void; children?: ReactNode }) {
  const id = useId();
  const [from, setFrom] = useState(range.from);
  const [to, setTo] = useState(range.to);
  const problem = rangeProblem({ from, to });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!problem) onChange({ from, to });
  };
  const pick = (days: number) => {
    const next = lastDays(days);
    setFrom(next.from);
    setTo(next.to);
    onChange(next);
  };

  return (
    <form className="filters" onSubmit={submit} aria-label="Usage range">
      <div className="field">
        <label htmlFor={`${id}-from`}>From (UTC)</label>
        <input id={`${id}-from`} type="date" value={from} onChange={(e) => setFrom(e.target.value)} aria-invalid={problem ? true : undefined} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-to`}>To (UTC)</label>
        <input id={`${id}-to`} type="date" value={to} onChange={(e) => setTo(e.target.value)} aria-invalid={problem ? true : undefined} />
      </div>
      {children}
      <button type="submit" disabled={problem !== null}>
        Show
      </button>
      <span className="row presets" role="group" aria-label="Quick ranges">
        {PRESETS.map((days) => (
          <button key={days} type="button" className="secondary small" onClick={() => pick(days)}>
            Last {days} days
          </button>
        ))}
      </span>
      {problem ? (
        <p className="hint field-problem" role="status">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
