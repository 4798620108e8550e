import { useState } from 'react';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { relativeTime } from '../time';
import { focusOnMount } from './focus';
import { formatInstant } from './format';
import { keyExpiry } from './keys';
import type { ApiKey } from './types';

/** Keys as listed by the gateway (never the key itself), each revoked after a second click. */
export function KeyTable({ keys, caption, revoke, onRevoked }: { keys: ReadonlyArray<ApiKey & { current?: boolean }>; caption: string; revoke: (keyId: string) => Promise<void>; onRevoked: () => void }) {
  const [confirming, setConfirming] = useState<string | null>(null);
  const { busy, error, run: revokeNow } = useAction(async (keyId: string) => {
    await revoke(keyId);
    setConfirming(null);
    onRevoked();
  });

  if (keys.length === 0) return <p className="hint">No keys.</p>;
  return (
    <>
      <ErrorMessage error={error} />
      <div className="table-scroll">
        <table className="data keys">
          <caption className="visually-hidden">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Expiry</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              const expiry = keyExpiry(key.expiresAt);
              const label = key.name ?? key.prefix;
              return (
                <tr key={key.id} data-key-id={key.id}>
                  <th scope="row">
                    {key.name ?? <span className="hint">unnamed</span>}
                    {key.current ? <span className="tag">this browser</span> : null}
                  </th>
                  <td>
                    <code>{key.prefix}</code>
                  </td>
                  <td title={formatInstant(key.createdAt)}>{relativeTime(key.createdAt)}</td>
                  <td className={`expiry ${expiry.state}`}>{expiry.text}</td>
                  <td title={formatInstant(key.lastUsedAt)}>{key.lastUsedAt ? relativeTime(key.lastUsedAt) : 'never'}</td>
                  <td className="actions">
                    {key.current ? (
                      <span className="hint">in use here</span>
                    ) : confirming === key.id ? (
                      <span className="confirm" role="group" aria-label={`Revoke ${label}?`}>
                        <button type="button" className="danger small" disabled={busy} ref={focusOnMount} onClick={() => void revokeNow(key.id)}>
                          Revoke now
                        </button>
                        <button type="button" className="secondary small" onClick={() => setConfirming(null)}>
                          Keep
                        </button>
                      </span>
                    ) : (
                      <button type="button" className="secondary small" aria-label={`Revoke key ${label}`} onClick={() => setConfirming(key.id)}>
                        Revoke…
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
