/**
 * `weft admin usage --csv | head`: once the reader has gone (EPIPE), nothing more can be shown,
 * so leave quietly as other command-line tools do instead of dying with a stack trace.
 */
export function leaveQuietlyWhenReaderGoes(stream: NodeJS.WritableStream, exit: (code: number) => void): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error; // as unhandled as it was without this listener
    exit(0);
  });
}
