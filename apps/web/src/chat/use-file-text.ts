import { useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';

/**
 * A workspace file's text, fetched once while `wanted` (an edit waiting for its answer); undefined
 * until it comes, and when it cannot be had (a new file, no workspace yet): the card then shows
 * the replacement alone.
 */
export function useFileText(api: ApiClient, workspaceId: string | undefined, path: string, wanted: boolean): string | undefined {
  const [text, setText] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!wanted || !workspaceId || !path) return;
    let live = true;
    api
      .file(workspaceId, path)
      .then((blob) => blob.text())
      .then(
        (value) => live && setText(value),
        () => undefined, // the preview falls back to the replacement alone
      );
    return () => {
      live = false;
    };
  }, [api, workspaceId, path, wanted]);
  return text;
}
