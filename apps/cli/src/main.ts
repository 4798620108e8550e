#!/usr/bin/env node
import { runCli } from './program';

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
