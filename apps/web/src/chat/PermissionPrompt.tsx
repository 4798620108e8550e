import { useState } from 'react';
import { ApiError } from '../api/api-error';
import type { ApiClient } from '../api/client';
import type { PermissionDecision } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';
import type { PermissionAsk } from '../timeline/timeline';

/** The agent waits for this answer; the card updates when `permission.decided` arrives. */
export function PermissionPrompt({ api, sessionId, tool, ask }: { api: ApiClient; sessionId: string; tool: string; ask: PermissionAsk }) {
  const [sending, setSending] = useState<PermissionDecision | null>(null);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const rules = ask.suggestedRules;
  const reasonId = `deny-reason-${ask.requestId}`;

  const answer = async (decision: PermissionDecision) => {
    setSending(decision);
    setError(null);
    try {
      const why = decision === 'deny' ? reason.trim() : '';
      await api.answerPermission(sessionId, ask.requestId, why ? { decision, reason: why } : { decision });
    } catch (err) {
      setSending(null);
      setError(err instanceof ApiError && err.status === 409 ? new Error('This question was already answered, expired, or its turn was cancelled.') : err);
    }
  };

  return (
    <div className="permission" role="group" aria-label={`Permission request for ${tool}`}>
      <p className="permission-question">
        <strong>Allow {tool}?</strong> <code>{ask.subject}</code>
      </p>
      {ask.reasons.length > 0 ? (
        <ul className="reasons">
          {ask.reasons.map((r) => (
            <li key={r}>{r}</li>
          ))}
        </ul>
      ) : null}
      <div className="row wrap">
        <button type="button" onClick={() => void answer('allow_once')} disabled={sending !== null}>
          Allow once
        </button>
        <button
          type="button"
          onClick={() => void answer('allow_always')}
          disabled={sending !== null || rules.length === 0}
          aria-describedby={`rules-${ask.requestId}`}
        >
          Allow always
        </button>
        <span id={`rules-${ask.requestId}`} className="hint">
          {rules.length > 0 ? (
            <>
              stores {rules.length === 1 ? 'the rule' : 'the rules'} {rules.map((r) => <code key={r}>{r}</code>)} for this session
            </>
          ) : (
            'no rule can cover this call: it asks each time'
          )}
        </span>
      </div>
      <div className="row wrap">
        <label htmlFor={reasonId} className="visually-hidden">
          Reason for denying (the model reads it)
        </label>
        <input id={reasonId} placeholder="Reason for denying (optional)" value={reason} onChange={(event) => setReason(event.target.value)} />
        <button type="button" className="danger" onClick={() => void answer('deny')} disabled={sending !== null}>
          Deny
        </button>
      </div>
      {sending ? <p role="status">Sending your answer…</p> : null}
      <ErrorMessage error={error} />
    </div>
  );
}
