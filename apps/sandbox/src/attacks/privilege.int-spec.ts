import { describe, expect, it } from 'vitest';
import { attackSuite } from '../testing/attack-suite';

/** `/proc/self/status` lines as a record. */
function statusFields(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split(':').map((part) => part.trim()) as [string, string]),
  );
}

describe('attack: privileges and escapes', () => {
  const suite = attackSuite();
  const { kinds } = suite;

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
            CapAmb: '0000000000000000',
            NoNewPrivs: '1',
            Seccomp: '2',
          });
        }
      }
    });

    it("keeps the engine's default seccomp profile, drops every capability and marks /proc's dangerous files read-only", async () => {
      const info = await suite.sandbox.docker.getContainer(await runs.containerId()).inspect();
      expect(info.Config.User).toBe('10001:10001');
      expect(info.HostConfig).toMatchObject({ CapDrop: ['ALL'], Privileged: false, ReadonlyRootfs: true });
      expect(info.HostConfig.CapAdd ?? []).toEqual([]);
      expect(info.HostConfig.SecurityOpt).toEqual(['no-new-privileges']);
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
      for (const flags of ['-Ur', '-m', '-n', '-p -f']) {
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
      expect(lines).toEqual(targets.map((pid) => `${pid} -1 3`)); // ESRCH: no such process in its world
    });

    it('sees no Docker socket, no DOCKER_HOST and no socket at all on its filesystem', async () => {
      const result = await bash(
        'ls -la /var/run/docker.sock /run/docker.sock 2>&1; env | grep -i docker; find / -xdev -type s 2>/dev/null; echo END',
      );
      expect(result.stdout).not.toMatch(/^s/m);
      expect(result.stdout).toContain('No such file or directory');
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
      expect(refusals).toContain('Read-only file system');
    });

    it('cannot gain root through a setuid binary', async () => {
      const result = await bash('for b in $(find / -xdev -perm -4000 -type f 2>/dev/null); do echo "$b"; done; su -c "id -u" root </dev/null; echo "rc=$?"');
      expect(result.stdout).not.toMatch(/^0$/m);
      expect(result.stdout).toMatch(/rc=[1-9]/);
    });
  });
});
