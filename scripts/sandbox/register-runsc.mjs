#!/usr/bin/env node
// Registers gVisor's runsc as a Docker runtime named `runsc` in the engine's daemon.json, keeping
// whatever else the file holds (docs/sandbox.md, "gVisor"). The platform is ptrace unless
// WEFT_RUNSC_PLATFORM says otherwise: it runs everywhere, while kvm needs hardware virtualisation
// (a VM may have /dev/kvm and still hang on it, as the development VMs do). `--network=host`:
// Debian's release refuses its own network stack on 6.x kernels; the container still gets Docker's
// network namespace. No `--oci-seccomp`: with it, Node crashes on the profile's clone3 rule.
// Exits 0 without a change when runsc is not installed or already registered.
// Usage: register-runsc.mjs [daemon.json]
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const file = process.argv[2] ?? '/etc/docker/daemon.json';
const runscPath = ['/usr/bin/runsc', '/usr/local/bin/runsc'].find((path) => existsSync(path));
if (!runscPath) {
  console.log('runsc is not installed: the sandbox runs on runc alone');
  process.exit(0);
}
const platform = process.env.WEFT_RUNSC_PLATFORM || 'ptrace';
let config = {};
if (existsSync(file)) {
  try {
    config = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`${file} is not valid JSON (${error.message}): fix it, then run this again`);
    process.exit(1);
  }
}
const wanted = { path: runscPath, runtimeArgs: [`--platform=${platform}`, '--network=host'] };
if (JSON.stringify(config.runtimes?.runsc) === JSON.stringify(wanted)) {
  console.log(`runsc is registered in ${file} (platform ${platform})`);
  process.exit(0);
}
config.runtimes = { ...config.runtimes, runsc: wanted };
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`);
console.log(`registered runsc in ${file} (platform ${platform}); a running dockerd takes it on SIGHUP`);
