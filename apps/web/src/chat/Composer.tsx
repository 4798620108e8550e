import { type FormEvent, type KeyboardEvent, useState } from 'react';
import type { ApiClient } from '../api/client';
import { ErrorMessage } from '../components/ErrorMessage';

/** Enter sends, Shift+Enter starts a new line. One turn at a time: the API refuses a second. */
export function Composer({ api, sessionId, busy }: { api: ApiClient; sessionId: string; busy: boolean }) {
  const [text, setText] = useState('');
  const [plan, setPlan] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const send = async (event?: FormEvent) => {
    event?.preventDefault();
    const content = text.trim();
    if (!content || busy || sending) return;
    setSending(true);
    setError(null);
    try {
      await api.postMessage(sessionId, content, plan ? { mode: 'plan' } : {});
      setText('');
    } catch (err) {
      setError(err);
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event);
  };

  return (
    <form className="composer" onSubmit={(event) => void send(event)}>
      <label htmlFor="message" className="visually-hidden">
        Message to the agent
      </label>
      <textarea
        id="message"
        rows={3}
        value={text}
        placeholder="What should the agent do? (Enter sends, Shift+Enter for a new line)"
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="row">
        <label className="inline">
          <input type="checkbox" checked={plan} onChange={(event) => setPlan(event.target.checked)} /> Plan first
        </label>
        <button type="submit" disabled={busy || sending || text.trim() === ''}>
          {busy ? 'Agent is working…' : sending ? 'Sending…' : 'Send'}
        </button>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}
