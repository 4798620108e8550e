import { type ReadPathResult, assertUnreachable } from '@weft/contracts';
import type { Response } from 'express';

/** A file as its bytes; a folder as `{ path, entries }`. */
export function sendReadPath(res: Response, path: string, result: ReadPathResult): void {
  switch (result.kind) {
    case 'file':
      res.status(200).type('application/octet-stream').send(Buffer.from(result.contentBase64, 'base64'));
      return;
    case 'directory':
      res.status(200).json({ path, entries: result.entries });
      return;
    default:
      assertUnreachable(result);
  }
}

export function sendArchive(res: Response, workspaceId: string, archive: Buffer): void {
  res
    .status(200)
    .type('application/gzip')
    .setHeader('Content-Disposition', `attachment; filename="${workspaceId}.tar.gz"`)
    .send(archive);
}

/** A git-style unified diff; empty (still 200) when nothing changed since import. */
export function sendPatch(res: Response, workspaceId: string, patch: string): void {
  res
    .status(200)
    .type('text/x-diff; charset=utf-8')
    .setHeader('Content-Disposition', `attachment; filename="${workspaceId}.patch"`)
    .send(patch);
}

/** Express 5 gives a `*path` wildcard as its segments. */
export function wildcardPath(value: string | string[] | undefined): string {
  const joined = Array.isArray(value) ? value.join('/') : (value ?? '');
  return joined === '' ? '.' : joined;
}
