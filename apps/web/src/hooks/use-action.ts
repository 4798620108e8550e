import { useState } from 'react';

export interface Action<A extends unknown[]> {
  /** True while the action runs: its button is disabled. */
  busy: boolean;
  /** What the last run threw, to show; cleared when the next run starts. */
  error: unknown;
  setError: (error: unknown) => void;
  /** Runs the action, keeping `busy` and `error` up to date; it never rejects. */
  run: (...args: A) => Promise<void>;
}

/** The busy flag and error of a button's or form's action, as every form on the page keeps them. */
export function useAction<A extends unknown[]>(action: (...args: A) => Promise<void>): Action<A> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A) => {
    setBusy(true);
    setError(null);
    try {
      await action(...args);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}
