import { type FormEvent, useId, useState } from 'react';
import type { CreateKeyBody } from '@weft/contracts';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { EXPIRY_CHOICES, type ExpiryChoice, expiresAtFor } from './keys';
import { utcDay } from './format';
import { NewKeyNotice } from './NewKeyNotice';
import type { CreatedKey } from './types';

/** A name and an expiry for a new key; the key itself is then shown once. */
export function KeyCreateForm({ create, onCreated, whose }: { create: (body: CreateKeyBody) => Promise<CreatedKey>; onCreated: () => void; whose: string }) {
  const id = useId();
  const [name, setName] = useState('');
  const [choice, setChoice] = useState<ExpiryChoice>('90');
  const [lastDay, setLastDay] = useState('');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const { busy, error, run } = useAction(async () => {
    const expiry = expiresAtFor(choice, lastDay);
    if ('error' in expiry) throw new Error(expiry.error);
    const body: CreateKeyBody = { ...(name.trim() ? { name: name.trim() } : {}), ...expiry };
    setCreated(await create(body));
    setName('');
    onCreated();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run();
  };

  if (created) return <NewKeyNotice created={created} onDone={() => setCreated(null)} />;
  return (
    <form className="key-form" onSubmit={submit} aria-label={`New key for ${whose}`}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Key name</label>
        <input id={`${id}-name`} value={name} maxLength={100} placeholder="laptop" onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-expiry`}>Expires</label>
        <select id={`${id}-expiry`} value={choice} onChange={(e) => setChoice(e.target.value as ExpiryChoice)}>
          {EXPIRY_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      </div>
      {choice === 'date' ? (
        <div className="field">
          <label htmlFor={`${id}-day`}>Last day (UTC)</label>
          <input id={`${id}-day`} type="date" min={utcDay(new Date())} value={lastDay} onChange={(e) => setLastDay(e.target.value)} />
        </div>
      ) : null}
      <button type="submit" disabled={busy}>
        Create key
      </button>
      <ErrorMessage error={error} prefix="No key was made." />
    </form>
  );
}
