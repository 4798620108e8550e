#!/usr/bin/env node
import { leaveQuietlyWhenReaderGoes } from './closed-output';
import { runCli } from './program';

leaveQuietlyWhenReaderGoes(process.stdout, (code) => process.exit(code));
leaveQuietlyWhenReaderGoes(process.stderr, (code) => process.exit(code));

const exitCode = runCli(process.argv, {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onInterrupt: (handler) => {
    process.on('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
  exitCode: 0,
});
void exitCode.then((code) => {
  process.exitCode = code;
});
