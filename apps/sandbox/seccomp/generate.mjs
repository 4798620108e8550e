#!/usr/bin/env node
// Writes weft-seccomp.json, the profile every sandbox container runs under: Docker's default
// profile (docker-default-20.10.24.json, moby's profiles/seccomp/default.json at v20.10.24, the
// engine Debian ships) less what lets one process of a run read or steer another (ptrace,
// process_vm_readv/writev, kcmp, pidfd_getfd), personality changes (only the query and PER_LINUX
// stay), and kernel surface no build or test needs (io_uring, keyctl and the key calls, userfaultfd,
// perf_event_open, bpf). Run it again after changing REMOVED or the source profile:
//   node apps/sandbox/seccomp/generate.mjs
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stdout } from 'node:process';

const here = import.meta.dirname;
const REMOVED = new Set([
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  'keyctl',
  'add_key',
  'request_key',
  'userfaultfd',
  'perf_event_open',
  'bpf',
]);
/** personality(2) arguments kept: PER_LINUX and the query (0xffffffff). */
const PERSONALITY_KEPT = new Set([0, 0xffffffff]);

const source = JSON.parse(readFileSync(join(here, 'docker-default-20.10.24.json'), 'utf8'));
const syscalls = [];
for (const rule of source.syscalls) {
  const names = rule.names.filter((name) => !REMOVED.has(name));
  if (names.length === 0) continue;
  if (names.includes('personality') && !PERSONALITY_KEPT.has(rule.args?.[0]?.value)) continue;
  syscalls.push({ ...rule, names });
}
const profile = { defaultAction: source.defaultAction, archMap: source.archMap, syscalls };
for (const name of REMOVED) {
  if (syscalls.some((rule) => rule.names.includes(name))) throw new Error(`${name} is still allowed`);
}
writeFileSync(join(here, 'weft-seccomp.json'), `${JSON.stringify(profile, null, 2)}\n`);
stdout.write(`weft-seccomp.json: ${syscalls.length} rules, ${syscalls.reduce((n, rule) => n + rule.names.length, 0)} names\n`);
