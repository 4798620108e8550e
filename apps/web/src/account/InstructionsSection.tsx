import { type FormEvent, useCallback, useEffect, useState } from 'react';
import type { AccountApi } from '../api/account-client';
import { ErrorMessage } from '../components/ErrorMessage';
import { useAction } from '../hooks/use-action';
import { relativeTime } from '../time';
import type { Instructions } from './types';
import { useLoad } from './use-load';

/** The gateway's cap on personal instructions (`putInstructionsBodySchema`). */
const MAX_INSTRUCTIONS_CHARS = 100_000;

/** Personal instructions: added to the prompt of every session of the user. */
export function InstructionsSection({ account }: { account: AccountApi }) {
  const load = useCallback(() => account.instructions(), [account]);
  const { data, error: loadError } = useLoad(load);
  const [saved, setSaved] = useState<Instructions | null>(null);
  const [draft, setDraft] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const current = saved ?? data;

  useEffect(() => {
    if (data) setSaved(data);
  }, [data]);

  const { busy, error, run: saveDraft } = useAction(async (text: string) => {
    const answer = await account.setInstructions(text);
    setSaved(answer);
    setDraft(null);
    setNotice(answer.content ? 'Saved. New turns of every session use them.' : 'Removed.');
  });

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (draft !== null) void saveDraft(draft);
  };

  return (
    <section className="card" aria-labelledby="instructions-heading">
      <h2 id="instructions-heading">Personal instructions</h2>
      <p className="hint">Added to every session of yours, after the project’s own instructions: your conventions, your tools, how you like answers.</p>
      <ErrorMessage error={loadError} />
      {current === null && !loadError ? <p role="status">Loading…</p> : null}
      {current && draft === null ? (
        <>
          {current.content ? <pre className="instructions">{current.content}</pre> : <p className="hint">None yet.</p>}
          <div className="row wrap">
            <button type="button" onClick={() => {
                setDraft(current.content);
                setNotice('');
              }}>
              Edit instructions
            </button>
            {current.updatedAt ? <span className="hint">Saved {relativeTime(current.updatedAt)}</span> : null}
          </div>
        </>
      ) : null}
      {draft !== null ? (
        <form className="stack wide" onSubmit={save}>
          <label htmlFor="instructions-text">Instructions (Markdown; empty removes them)</label>
          <textarea id="instructions-text" className="mono" rows={10} maxLength={MAX_INSTRUCTIONS_CHARS} value={draft} onChange={(e) => setDraft(e.target.value)} />
          <div className="row wrap">
            <button type="submit" disabled={busy}>
              Save instructions
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => setDraft(null)}>
              Cancel
            </button>
            <span className="hint">
              {draft.length.toLocaleString('en-US')} / {MAX_INSTRUCTIONS_CHARS.toLocaleString('en-US')} characters
            </span>
          </div>
        </form>
      ) : null}
      <ErrorMessage error={error} prefix="Not saved." />
      <p className="hint" role="status">
        {notice}
      </p>
    </section>
  );
}
