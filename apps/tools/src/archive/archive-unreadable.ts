/** The archive as a whole is unusable (not gzip, corrupt, a decompression bomb). */
export class ArchiveUnreadable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(reason, options);
    this.name = 'ArchiveUnreadable';
  }
}
