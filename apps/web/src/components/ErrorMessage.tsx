import { describeError } from '../api/api-error';

/** An API error as the user reads it: the gateway's message, announced to screen readers. */
export function ErrorMessage({ error, prefix }: { error: unknown; prefix?: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {prefix ? `${prefix} ` : ''}
      {describeError(error)}
    </p>
  );
}
