import { useEffect, useRef, useState } from 'react';
import type { CreatedKey } from './types';

/**
 * A key just made, shown this once (the gateway keeps only its hash), with a copy button. The
 * field takes the focus, so a keyboard user lands on it and can copy it with the keyboard too.
 */
export function NewKeyNotice({ created, onDone }: { created: CreatedKey; onDone: () => void }) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);

  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied('yes');
    } catch {
      // No clipboard access (an insecure origin, a refused permission): the text stays selected to copy by hand.
      field.current?.select();
      setCopied('failed');
    }
  };

  const label = created.name ?? created.prefix;
  return (
    <div className="new-key" role="region" aria-label={`New key ${label}`}>
      <p>
        <strong>Copy the new key {created.name ? `“${created.name}”` : ''} now:</strong> it is shown only this once.
      </p>
      <div className="row wrap">
        <label htmlFor={`new-key-${created.id}`} className="visually-hidden">
          The new key
        </label>
        <input id={`new-key-${created.id}`} ref={field} className="key-value" readOnly value={created.key} spellCheck={false} onFocus={(e) => e.target.select()} />
        <button type="button" className="small" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" className="secondary small" onClick={onDone}>
          Done
        </button>
      </div>
      <p className="hint" role="status">
        {copied === 'yes' ? 'Copied to the clipboard.' : copied === 'failed' ? 'The browser refused the clipboard: the key is selected, copy it with Ctrl+C.' : ''}
      </p>
    </div>
  );
}
