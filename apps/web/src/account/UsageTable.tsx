import { formatCount } from './format';
import { USAGE_COLUMNS, quotaTokens, sortUsageRows } from './usage';
import type { UsageRow, UsageTotals } from './types';

/** Usage per day and model (and user, for the admin), with the totals of the range at the foot. */
export function UsageTable({ rows, totals, caption, userName }: { rows: readonly UsageRow[]; totals: UsageTotals; caption: string; userName?: (userId: string) => string }) {
  if (rows.length === 0) return <p className="hint">No usage in this range.</p>;
  const leading = userName ? 3 : 2;
  return (
    <div className="table-scroll">
      <table className="data usage">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Day</th>
            {userName ? <th scope="col">User</th> : null}
            <th scope="col">Model</th>
            {USAGE_COLUMNS.map((c) => (
              <th key={c.metric} scope="col" className="num">
                {c.label}
              </th>
            ))}
            <th scope="col" className="num">
              Quota tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {sortUsageRows(rows).map((row) => (
            <tr key={`${row.date} ${row.userId ?? ''} ${row.model}`}>
              <td>{row.date}</td>
              {userName ? <td>{userName(row.userId ?? '')}</td> : null}
              <td className="model">{row.model}</td>
              {USAGE_COLUMNS.map((c) => (
                <td key={c.metric} className="num">
                  {c.format(row[c.metric])}
                </td>
              ))}
              <td className="num">{formatCount(quotaTokens(row))}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={leading}>
              Total
            </th>
            {USAGE_COLUMNS.map((c) => (
              <td key={c.metric} className="num">
                {c.format(totals[c.metric])}
              </td>
            ))}
            <td className="num">{formatCount(quotaTokens(totals))}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
