import { describe, expect, it } from 'vitest';
import { seccompProfile } from '../docker/seccomp-profile';
import { attackSuite } from '../testing/attack-suite';
import { runtimeCases } from '../testing/test-runtimes';

const EPERM = 1;
const ESRCH = 3;
const EINVAL = 22;
const ENOSYS = 38;

/**
 * From inside a run: PTRACE_SEIZE (which, unlike ATTACH, stops nothing should it pass) of its
 * command server and of a process the run started itself, then process_vm_readv of that process.
 */
const PTRACE_PROBE = [
  'import ctypes, os, time',
  'libc = ctypes.CDLL(None, use_errno=True)',
  'def server():',
  '    for pid in os.listdir("/proc"):',
  '        if pid.isdigit() and b"weft-serve" in open(f"/proc/{pid}/cmdline", "rb").read(): return int(pid)',
  'child = os.fork()',
  'if child == 0:',
  '    time.sleep(30); os._exit(0)',
  'for name, pid in (("server", server()), ("child", child)):',
  '    rc = libc.ptrace(0x4206, pid, None, None)',
  '    print(name, rc, ctypes.get_errno() if rc else 0)',
  'buf = ctypes.create_string_buffer(8)',
  'iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 8)',
  'rc = libc.process_vm_readv(child, iov, 1, iov, 1, 0)',
  'print("process_vm_readv", rc, ctypes.get_errno() if rc < 0 else 0)',
  'os.kill(child, 9)',
].join('\n');

/** `/proc/self/status` lines as a record. */
function statusFields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(':').map((part) => part.trim()) as [string, string]),
  );
}

describe.each(runtimeCases())('attack: privileges and escapes on $title', ({ runtime }) => {
  const suite = attackSuite({ runtime });
  const { kinds } = suite;
  const gvisor = runtime === 'runsc';

  describe.each(kinds)('in $title', (runs) => {
    const bash = (code: string) => runs.exec({ mode: 'code', language: 'bash', code });

    it('runs as uid 10001 with every capability set empty, no new privileges and a seccomp filter, as does its first process', async () => {
      const workspaceId = await suite.sandbox.newWorkspace();
      // pid 1: the runner, the command itself, or a session's init (its command server's parent).
      const probe = 'id -u; id -G; for p in self 1; do echo "-- $p"; grep -E "^(Uid|Cap|NoNewPrivs|Seccomp)" /proc/$p/status; done';
      // Cold (with a workspace) and warm (pooled) runs are confined alike.
      for (const result of [
        await runs.exec({ mode: 'command', workspaceId, command: probe, writable: true }),
        await bash(probe),
      ]) {
        const [ids, ...processes] = result.stdout.split(/^-- \S+\n/m);
        expect(ids).toBe('10001\n10001\n');
        expect(processes).toHaveLength(2);
        for (const status of processes) {
          expect(statusFields(status)).toMatchObject({
            Uid: '10001\t10001\t10001\t10001',
            CapInh: '0000000000000000',
            CapPrm: '0000000000000000',
            CapEff: '0000000000000000',
            CapBnd: '0000000000000000',
            // gVisor's /proc has no CapAmb or NoNewPrivs line, and the run's seccomp profile is
            // runc's: in gVisor the Sentry answers every call, itself filtered by runsc's own profile.
            ...(gvisor ? { Seccomp: '0' } : { CapAmb: '0000000000000000', NoNewPrivs: '1', Seccomp: '2' }),
          });
        }
      }
    });

    // Under gVisor there is no pooled container to inspect (snippets run cold, each removed at its end).
    it.skipIf(gvisor && runs.kind === 'throwaway')("runs under Weft's seccomp profile on its runtime, drops every capability and marks /proc's dangerous files read-only", async () => {
      const info = await suite.sandbox.docker.getContainer(await runs.containerId()).inspect();
      expect(info.Config.User).toBe('10001:10001');
      expect(info.HostConfig).toMatchObject({ CapDrop: ['ALL'], Privileged: false, ReadonlyRootfs: true, Runtime: runtime });
      expect(info.HostConfig.CapAdd ?? []).toEqual([]);
      expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges', `seccomp=${seccompProfile()}`]);
      expect(info.HostConfig.ReadonlyPaths).toEqual(expect.arrayContaining(['/proc/sysrq-trigger', '/proc/sys']));
      expect(info.HostConfig.MaskedPaths).toEqual(expect.arrayContaining(['/proc/kcore']));
    });

    it('cannot write /proc/sysrq-trigger', async () => {
      // 'h' only prints help to the kernel log, should the write ever get through.
      const result = await bash('echo h > /proc/sysrq-trigger && echo WRITTEN');
      expect(result.exitCode).not.toBe(0);
      expect(result.stdout).not.toContain('WRITTEN');
    });

    it('cannot mount, as a command or as a raw syscall', async () => {
      const command = await bash('mkdir -p /tmp/m && mount -t tmpfs none /tmp/m && echo MOUNTED');
      expect(command.exitCode).not.toBe(0);
      expect(command.stdout).not.toContain('MOUNTED');
      const code = [
        'import ctypes, os',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'os.makedirs("/tmp/m", exist_ok=True)',
        'rc = libc.mount(b"none", b"/tmp/m", b"tmpfs", 0, None)',
        'print(rc, ctypes.get_errno())',
      ].join('\n');
      const syscall = await runs.exec({ mode: 'code', language: 'python', code });
      expect(syscall.stdout.trim()).toBe('-1 1'); // EPERM
    });

    it('cannot unshare into new user or mount namespaces', async () => {
      // gVisor lets a run make a user namespace of its own kernel's (root inside it, nothing on
      // the host's); mount, network and pid namespaces stay refused there too.
      if (gvisor) expect((await bash('unshare -Ur id -u')).stdout).toBe('0\n');
      for (const flags of gvisor ? ['-m', '-n', '-p -f'] : ['-Ur', '-m', '-n', '-p -f']) {
        const result = await bash(`unshare ${flags} id -u && echo UNSHARED`);
        expect(result.exitCode, flags).not.toBe(0);
        expect(result.stdout, flags).not.toContain('UNSHARED');
        expect(result.stderr, flags).toContain('Operation not permitted');
      }
    });

    it('cannot ptrace any process outside its container', async () => {
      // The worker's own pid, and pids above anything in a fresh namespace, from inside.
      const code = [
        'import ctypes, sys',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'for pid in map(int, sys.argv[1:]):',
        '    rc = libc.ptrace(16, pid, None, None)  # PTRACE_ATTACH',
        '    print(pid, rc, ctypes.get_errno())',
      ].join('\n');
      const targets = [process.pid, 1000, 30000];
      const result = await bash(`python3 -c '${code}' ${targets.join(' ')}`);
      const lines = result.stdout.trim().split('\n');
      // runc: the seccomp profile refuses ptrace before any pid is looked up; gVisor: no such
      // process in the sandbox's own kernel.
      expect(lines).toEqual(targets.map((pid) => `${pid} -1 ${gvisor ? ESRCH : EPERM}`));
    });

    it('cannot ptrace its command server or a process of its own, nor read their memory', async () => {
      const result = await runs.exec({ mode: 'code', language: 'python', code: PTRACE_PROBE });
      // gVisor refuses a trace of anything but a descendant (Yama's "relational" rule, built in)
      // and has no process_vm_readv at all; under runc the seccomp profile refuses all three.
      expect(result.stdout.trim().split('\n')).toEqual(
        gvisor
          ? [`server -1 ${EPERM}`, 'child 0 0', `process_vm_readv -1 ${ENOSYS}`]
          : [`server -1 ${EPERM}`, `child -1 ${EPERM}`, `process_vm_readv -1 ${EPERM}`],
      );
      await runs.expectNextRunWorks();
    });

    it('cannot change its personality (no ASLR), only ask for it', async () => {
      const code = [
        'import ctypes',
        'libc = ctypes.CDLL(None, use_errno=True)',
        'query = libc.personality(ctypes.c_ulong(0xffffffff))',
        'print(query >= 0, libc.personality(ctypes.c_ulong(0x0040000)), ctypes.get_errno())  # ADDR_NO_RANDOMIZE',
      ].join('\n');
      const result = await runs.exec({ mode: 'code', language: 'python', code });
      // gVisor's release refuses every personality call, the query too (EINVAL): ASLR stays on.
      expect(result.stdout.trim()).toBe(gvisor ? `False -1 ${EINVAL}` : `True -1 ${EPERM}`);
    });

    it('sees no Docker socket, no DOCKER_HOST and no socket at all on its filesystem', async () => {
      const result = await bash(
        'ls -la /var/run/docker.sock /run/docker.sock 2>&1; env | grep -i docker; find / -xdev -type s 2>/dev/null; echo END',
      );
      expect(result.stdout).not.toMatch(/^s/m);
      // gVisor's release answers coreutils' statx (AT_NO_AUTOMOUNT) with EINVAL, for any path.
      expect(result.stdout).toContain(gvisor ? "cannot access '/var/run/docker.sock': Invalid argument" : 'No such file or directory');
      if (gvisor) expect((await runs.exec({ mode: 'code', language: 'python', code: 'import os; print([os.path.lexists(p) for p in ("/var/run/docker.sock", "/run/docker.sock")])' })).stdout).toBe('[False, False]\n');
      expect(result.stdout).not.toMatch(/DOCKER_HOST/i);
      expect(result.stdout.trim().split('\n').filter((line) => line.startsWith('/'))).toEqual([]);
    });

    it('cannot write the root filesystem, the runner and the command server included', async () => {
      const result = await bash(
        'echo evil > /usr/local/bin/weft-run; echo evil > /usr/local/bin/weft-serve; touch /etc/evil; echo x >> /etc/passwd; echo done',
      );
      expect(result.stdout).toBe('done\n');
      const refusals = result.stderr.match(/(Read-only file system|Permission denied)$/gm) ?? [];
      expect(refusals).toHaveLength(4);
      // gVisor checks the file's permission before the mount's read-only flag: EACCES for all four.
      expect(refusals).toContain(gvisor ? 'Permission denied' : 'Read-only file system');
    });

    it('cannot gain root through a setuid binary', async () => {
      const result = await bash('for b in $(find / -xdev -perm -4000 -type f 2>/dev/null); do echo "$b"; done; su -c "id -u" root </dev/null; echo "rc=$?"');
      expect(result.stdout).not.toMatch(/^0$/m);
      expect(result.stdout).toMatch(/rc=[1-9]/);
    });
  });
});
