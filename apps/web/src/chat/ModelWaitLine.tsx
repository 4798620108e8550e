import { useEffect, useState } from 'react';
import type { ModelWait } from '../timeline/model-wait';

/** Seconds since `since`, never below 0 (the browser's clock may run behind the gateway's). */
const secondsSince = (since: string, now: number) => Math.max(0, Math.floor((now - Date.parse(since)) / 1000));

/**
 * The model was asked and has not written yet: it is reading its prompt (prefill), which takes
 * seconds for a long conversation on a busy GPU. Says what it reads and counts the seconds.
 */
export function ModelWaitLine({ wait, model }: { wait: ModelWait; model: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [wait.since]);
  const seconds = secondsSince(wait.since, now);
  return (
    <div className="model-wait" data-testid="model-wait">
      <span className="model-wait-dots" aria-hidden="true" />
      <span>
        {/* Announced once per wait, not every second. */}
        <span role="status">
          {wait.loading
            ? `Loading ${wait.loading.model} (${Math.round(wait.loading.progress * 100)} %) before it reads ${wait.what}`
            : `${model ?? 'The model'} is reading ${wait.what} before it answers`}
        </span>{' '}
        <span className="hint" data-seconds={seconds}>
          · {seconds} s
        </span>
      </span>
    </div>
  );
}
