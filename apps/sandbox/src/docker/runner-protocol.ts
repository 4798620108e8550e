/**
 * The contract between the warm pool and `weft-run` in the runtime image
 * (docker/sandbox-runtime/weft-run): one line with the job's argv, NUL-separated and base64
 * encoded, then the job's stdin as is.
 */
export const RUNNER_PATH = '/usr/local/bin/weft-run';
/** How long an idle runner waits for its job before it exits on its own. */
export const RUNNER_IDLE_ENV = 'WEFT_IDLE_SECONDS';

export function encodeJob(argv: readonly string[], stdin = ''): Buffer {
  if (argv.length === 0) throw new Error('a job needs a command');
  if (argv.some((arg) => arg.includes('\0'))) throw new Error('an argument cannot hold a NUL byte');
  const header = Buffer.from(argv.map((arg) => `${arg}\0`).join(''), 'utf8').toString('base64');
  return Buffer.concat([Buffer.from(`${header}\n`, 'ascii'), Buffer.from(stdin, 'utf8')]);
}
