/**
 * Programs people allow by prefix (`Bash(npm run test:*)`, `Bash(git log:*)`, `Bash(find:*)`) whose
 * options make them run, load or write something the rule does not name:
 * `npm run test --script-shell=/bin/curl` runs curl. A rule vouches for words, not for what a
 * program does with them, so such an option is a risk (the line is asked about, never allowed by a
 * prefix rule), and a command the program runs is analysed like any other, so that deny and ask
 * rules still see it (`xargs curl` runs `curl`).
 */

type Word = string | null;

export interface ProgramEffects {
  /** Why the line cannot be allowed by a rule. */
  risks: string[];
  /** Commands the program runs: `xargs -n1 curl x` runs `curl x`. */
  commands: Word[][];
  /** Shell command lines the program runs: `git rebase --exec 'curl x'`. */
  scripts: string[];
}

interface ProgramRule {
  /** Options that run, load or write something the command line does not name. */
  dangerous?: readonly string[];
  /** Options whose value is a shell command line that the program runs. */
  scripts?: readonly string[];
  /** Options that take the next word (or the rest of a short-option cluster) as their value. */
  values?: readonly string[];
  /** npm's parser (nopt) also takes `--script_shell` and abbreviations (`--script-sh`), and a bare `--x` may take the next word. */
  loose?: boolean;
  /** The first operand names a sub-command that has rules of its own. */
  subcommands?: Readonly<Record<string, ProgramRule>>;
  /** Its own options come before the sub-command (`git -c x log`); after it they belong to the sub-command. */
  optionsBeforeSubcommand?: boolean;
  /** The words after its options are a command it runs: after `skip` operands (timeout's duration) and, with `assignments`, `NAME=value` words; `asScript` joins them into a shell command line. */
  runs?: { skip?: number; assignments?: boolean; asScript?: boolean };
  /** Always a risk: the program runs something this table does not model. */
  always?: string;
  /** find's actions: the words after one of these, up to `;` or `+`, are a command. */
  actions?: readonly string[];
  /** The program's own language (awk, sed): true when its text runs commands or writes files. */
  program?: (text: string) => boolean;
  /** Options whose value is such program text; without one, the first operand is. */
  programOptions?: readonly string[];
}

/** npm config that picks the shell for scripts, moves the package, or loads other code or config. */
const NPM_DANGEROUS = [
  '--script-shell', '--prefix', '-C', '--userconfig', '--globalconfig', '--node-options', '--call', '-c',
  '--shell', '--editor', '--browser', '--viewer', '--git', '--onload-script', '--init-module',
];
const NPM_VALUES = ['-w', '--workspace', '-p', '--package', '--prefix', '-C', '--script-shell', '--userconfig', '-c', '--call'];
const NPM_EXEC: ProgramRule = { dangerous: NPM_DANGEROUS, scripts: ['-c', '--call'], values: NPM_VALUES, loose: true, runs: {} };
const PNPM_EXEC: ProgramRule = { dangerous: ['-c', '--shell-mode'], values: ['--filter', '-F'], runs: {} };
const RUNS: ProgramRule = { runs: {} };
const RUNS_SOMETHING: ProgramRule = { always: 'runs another command' };
const AWK: ProgramRule = {
  dangerous: ['-f', '--file', '-l', '--load', '-E', '--exec', '-i', '--include'],
  values: ['-v', '--assign', '-F', '--field-separator', '-f', '--file', '-e', '--source'],
  program: awkRunsOrWrites,
  programOptions: ['-e', '--source'],
};

/** The table: program → what in its arguments makes it run or write something else. */
const PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  npm: {
    dangerous: NPM_DANGEROUS,
    scripts: ['-c', '--call'],
    values: NPM_VALUES,
    loose: true,
    subcommands: { exec: NPM_EXEC, x: NPM_EXEC, explore: { ...NPM_EXEC, runs: { skip: 1 } } },
  },
  npx: NPM_EXEC,
  pnpm: {
    dangerous: ['--script-shell', '--dir', '-C', '--node-options', '--shell-emulator'],
    values: ['--dir', '-C', '--filter', '-F'],
    loose: true,
    subcommands: { exec: PNPM_EXEC, dlx: PNPM_EXEC },
  },
  yarn: { dangerous: ['--cwd'], values: ['--cwd'], subcommands: { exec: RUNS, dlx: RUNS } },
  git: {
    // Config on the command line can set a pager, an ssh command, an fsmonitor hook or an alias.
    dangerous: ['-c', '--config-env', '--exec-path'],
    values: ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--config-env', '--attr-source'],
    optionsBeforeSubcommand: true,
    subcommands: {
      clone: { dangerous: ['--upload-pack', '-u', '--config', '-c', '--template'] },
      fetch: { dangerous: ['--upload-pack'] },
      pull: { dangerous: ['--upload-pack'] },
      'ls-remote': { dangerous: ['--upload-pack'] },
      push: { dangerous: ['--receive-pack', '--exec'] },
      archive: { dangerous: ['--exec', '--remote', '--output', '-o'] },
      log: { dangerous: ['--output'] },
      show: { dangerous: ['--output'] },
      diff: { dangerous: ['--output'] },
      grep: { dangerous: ['--open-files-in-pager', '-O'] },
      rebase: { scripts: ['--exec', '-x'] },
      difftool: { scripts: ['--extcmd', '-x'] },
      bisect: { subcommands: { run: RUNS } },
      submodule: { subcommands: { foreach: { runs: { asScript: true } } } },
      'filter-branch': {
        scripts: ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
      },
    },
  },
  find: { actions: ['-exec', '-execdir', '-ok', '-okdir'], dangerous: ['-delete', '-fprint', '-fprint0', '-fprintf', '-fls'] },
  xargs: {
    values: ['-a', '--arg-file', '-d', '--delimiter', '-E', '-I', '-L', '-n', '--max-args', '-P', '--max-procs', '-s', '--max-chars', '--process-slot-var'],
    runs: {},
  },
  env: { scripts: ['-S', '--split-string'], values: ['-u', '--unset', '-C', '--chdir'], runs: { assignments: true } },
  nice: { values: ['-n', '--adjustment'], runs: {} },
  nohup: RUNS,
  setsid: RUNS,
  time: { values: ['-f', '--format', '-o', '--output'], runs: {} },
  timeout: { values: ['-s', '--signal', '-k', '--kill-after'], runs: { skip: 1 } },
  stdbuf: { values: ['-i', '-o', '-e', '--input', '--output', '--error'], runs: {} },
  exec: { values: ['-a'], runs: {} },
  command: RUNS,
  builtin: RUNS,
  sudo: {
    values: ['-u', '--user', '-g', '--group', '-C', '--close-from', '-D', '--chdir', '-h', '--host', '-p', '--prompt', '-r', '--role', '-t', '--type', '-T', '--command-timeout', '-U', '--other-user'],
    runs: { assignments: true },
  },
  doas: { values: ['-u', '-C'], runs: {} },
  su: { scripts: ['-c', '--command'], always: 'runs a shell' },
  runuser: { scripts: ['-c', '--command'], always: 'runs a shell' },
  flock: { scripts: ['-c', '--command'], values: ['-w', '--timeout', '-E', '--conflict-exit-code'], runs: { skip: 1 } },
  watch: { values: ['-n', '--interval', '-q', '--equexit'], runs: { asScript: true } },
  awk: AWK,
  gawk: AWK,
  mawk: AWK,
  nawk: AWK,
  sed: {
    dangerous: ['-i', '--in-place', '-f', '--file'],
    values: ['-e', '--expression', '-f', '--file', '-l', '--line-length'],
    program: sedRunsOrWrites,
    programOptions: ['-e', '--expression'],
  },
  tar: {
    dangerous: ['--to-command', '--checkpoint-action', '-I', '--use-compress-program', '--info-script', '-F', '--new-volume-script', '--rsh-command', '--rmt-command'],
    values: ['-f', '--file', '-C', '--directory'],
  },
  rsync: { scripts: ['-e', '--rsh'], dangerous: ['--rsync-path'] },
  ionice: RUNS_SOMETHING,
  parallel: RUNS_SOMETHING,
  chroot: RUNS_SOMETHING,
  strace: RUNS_SOMETHING,
  ltrace: RUNS_SOMETHING,
  unbuffer: RUNS_SOMETHING,
  script: RUNS_SOMETHING,
  fakeroot: RUNS_SOMETHING,
  taskset: RUNS_SOMETHING,
  chrt: RUNS_SOMETHING,
  nsenter: RUNS_SOMETHING,
  unshare: RUNS_SOMETHING,
  'systemd-run': RUNS_SOMETHING,
  expect: RUNS_SOMETHING,
  coproc: RUNS_SOMETHING,
};

/** `system(…)`, a pipe to or from a command (`|`, not `||`), `print > file`, `@load`. */
function awkRunsOrWrites(text: string): boolean {
  return /\bsystem\s*\(|(^|[^|])\|(?!\|)|\bprintf?\b[^;{}\n]*>|@load/.test(text);
}

/** GNU sed's `e` (run a command) and `w`/`W` (write a file), as commands or as `s///` flags. */
function sedRunsOrWrites(text: string): boolean {
  const command = /(^|[;\n{}])\s*([\d$,~+!\s]|\/(?:[^/\\\n]|\\.)*\/)*[ewW]/;
  const substituteFlag = /s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1[^;\n}]*[ewW]/;
  return command.test(text) || substituteFlag.test(text);
}

/** What running `program` with `args` can do beyond what its name says. */
export function programEffects(program: string, args: readonly Word[]): ProgramEffects {
  const effects: ProgramEffects = { risks: [], commands: [], scripts: [] };
  const rule = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  if (rule) new Scan(rule, program, args, effects).run();
  return effects;
}

class Scan {
  private optionsEnded = false;
  private operands = 0;
  /** An operand that no option can have taken as its value: sub-commands are looked for before it. */
  private commandSeen = false;
  private programGiven = false;

  constructor(
    private readonly rule: ProgramRule,
    private readonly name: string,
    private readonly args: readonly Word[],
    private readonly effects: ProgramEffects,
  ) {}

  run(): void {
    const { rule, name, effects } = this;
    if (rule.always) effects.risks.push(`${name} ${rule.always}`);
    if (rule.runs) effects.risks.push(`${name} runs another command`);
    for (let i = 0; i < this.args.length; i++) {
      const arg = this.args[i];
      if (arg === null || arg === undefined) continue; // an expansion: the analysis already asks about it
      if (!this.optionsEnded && arg === '--') {
        if (!rule.runs) return; // what follows belongs to a script, or names paths
        this.optionsEnded = true;
      } else if (!this.optionsEnded && arg.startsWith('-') && arg !== '-') {
        i = this.option(i);
      } else if (this.operand(i)) {
        return;
      }
    }
  }

  /** Reads the operand at `i`; true when the rest of the words are no longer this program's. */
  private operand(i: number): boolean {
    const { rule, name, args, effects } = this;
    const arg = args[i] as string;
    if (rule.subcommands && !this.commandSeen) {
      const subcommand = Object.hasOwn(rule.subcommands, arg) ? rule.subcommands[arg] : undefined;
      if (subcommand) {
        new Scan(subcommand, `${name} ${arg}`, args.slice(i + 1), effects).run();
        return true;
      }
      if (rule.optionsBeforeSubcommand) return true;
    }
    const previous = args[i - 1];
    if (!(rule.loose && typeof previous === 'string' && /^--[^=]+$/.test(previous))) this.commandSeen = true;
    if (rule.runs) {
      if (rule.runs.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) return false;
      if (this.operands++ < (rule.runs.skip ?? 0)) return false;
      const command = args.slice(i);
      if (!rule.runs.asScript) effects.commands.push([...command]);
      else if (command.every((word): word is string => word !== null)) effects.scripts.push(command.join(' '));
      return true;
    }
    if (this.operands++ === 0 && !this.programGiven) this.checkProgram(arg);
    return false;
  }

  /** Reads the option at `i`; returns the index of the last word it used. */
  private option(i: number): number {
    const { rule, name, args, effects } = this;
    const arg = args[i] as string;
    if (rule.actions?.includes(arg)) {
      let end = i + 1;
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
      effects.risks.push(`${name} ${arg} runs another command`);
      effects.commands.push(args.slice(i + 1, end));
      return end;
    }
    const dangerous = rule.dangerous?.find((spec) => this.matches(arg, spec));
    if (dangerous) effects.risks.push(`${name} ${dangerous} changes what the command runs or writes`);
    const script = rule.scripts?.find((spec) => this.matches(arg, spec));
    const program = rule.programOptions?.find((spec) => this.matches(arg, spec));
    const spec = script ?? program ?? rule.values?.find((value) => this.matches(arg, value));
    if (!spec) return i;
    const attached = attachedValue(arg, spec);
    const value = attached ?? args[i + 1];
    if (script) {
      effects.risks.push(`${name} ${script} runs a command line`);
      if (typeof value === 'string') effects.scripts.push(value);
    }
    if (program) {
      this.programGiven = true;
      if (typeof value === 'string') this.checkProgram(value);
    }
    return attached === undefined ? i + 1 : i;
  }

  private checkProgram(text: string): void {
    if (this.rule.program?.(text)) this.effects.risks.push(`${this.name}'s program runs a command or writes a file`);
  }

  /**
   * `--opt` also matches `--opt=value` (and, loosely, an abbreviation); `-o` also matches
   * `-ovalue` and a cluster `-ao`, up to the first letter that takes a value; a longer
   * single-dash spec (find's `-delete`) matches only itself.
   */
  private matches(arg: string, spec: string): boolean {
    if (spec.startsWith('--')) {
      const name = arg.split('=')[0] as string;
      if (!name.startsWith('--')) return false;
      if (!this.rule.loose) return name === spec;
      const normalised = name.replace(/_/g, '-');
      return normalised.length > 2 && spec.startsWith(normalised);
    }
    if (spec.length > 2) return arg === spec;
    if (arg.startsWith('--')) return false;
    for (const letter of arg.slice(1)) {
      if (letter === spec[1]) return true;
      if (this.rule.values?.includes(`-${letter}`)) return false;
    }
    return false;
  }
}

/** The value written into the option word itself: `--exec=make`, `-xmake`, `-n1`. */
function attachedValue(arg: string, spec: string): string | undefined {
  if (spec.startsWith('--')) return arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : undefined;
  const at = arg.indexOf(spec[1] as string, 1);
  return at < arg.length - 1 ? arg.slice(at + 1) : undefined;
}
