import { describe, expect, it } from 'vitest';
import { programEffects } from './program-hazards';

const effects = (line: string) => {
  const [program, ...args] = line.split(' ');
  return programEffects(program as string, args);
};

describe('programEffects', () => {
  it.each([
    'npm run test --script-shell=/bin/curl',
    'npm run test --script-shell x',
    'npm run test --prefix /tmp/elsewhere',
    'npm run test -C /tmp/elsewhere',
    'npm --script-shell x run test',
    'npm run test --script-sh=x',
    'npm run test --script_shell=x',
    'npm run test --userconfig /tmp/npmrc',
    'npm run test --node-options=--require=/tmp/x.js',
    'pnpm test --dir /tmp/elsewhere',
    'git -c core.pager=x log',
    'git --config-env=core.pager=X log',
    'git --exec-path=/tmp status',
    'git fetch --upload-pack=x origin',
    'git clone -u x repo',
    'git push --receive-pack=x origin',
    'git log --output=/etc/x',
    'git grep -Ox pattern',
    'find . -delete',
    'find . -fprint /tmp/x',
    'awk -f prog.awk data',
    'sed -i s/a/b/ f',
    'sed -n 1e_x f',
    'tar -xf a.tar --to-command=x',
    'rsync --rsync-path=x a b',
  ])('asks about %s', (line) => {
    expect(effects(line).risks).not.toEqual([]);
  });

  it.each([
    'npm run test',
    'npm run test -- --script-shell=x',
    'npm test --silent',
    'npm run test -w app',
    'git status',
    'git -C /repo log --oneline',
    'git switch -c feature',
    'git commit -c HEAD',
    'git log -c',
    'find . -name x -type f',
    'sed -n 10,20p f',
    'sed s/foo/bar/g f',
    'sed -e s/a/b/ emails.txt',
    'awk {print} f',
    'awk -vname=1 -F: {print} f',
    'tar -xzf a.tar -C dir',
    'ls -la',
  ])('finds nothing to ask about in %s', (line) => {
    expect(effects(line)).toEqual({ risks: [], commands: [], scripts: [] });
  });

  it.each<[string, string[]]>([
    ['xargs curl x', ['curl', 'x']],
    ['xargs -n1 -P 4 curl x', ['curl', 'x']],
    ['xargs -I {} curl {}', ['curl', '{}']],
    ['env FOO=1 -u BAR curl x', ['curl', 'x']],
    ['env -i FOO=1 npm run test', ['npm', 'run', 'test']],
    ['timeout -s KILL 5 curl x', ['curl', 'x']],
    ['nice -n 5 curl x', ['curl', 'x']],
    ['npx curl x', ['curl', 'x']],
    ['npm exec -- curl x', ['curl', 'x']],
    ['npm x -p pkg curl x', ['curl', 'x']],
    ['npm --loglevel silent exec curl x', ['curl', 'x']],
    ['pnpm dlx curl x', ['curl', 'x']],
    ['git bisect run curl x', ['curl', 'x']],
    ['find . -exec curl {} ; -name x', ['curl', '{}']],
    ['find . -execdir curl {} +', ['curl', '{}']],
    ['sudo -u root curl x', ['curl', 'x']],
  ])('reads %s as running a command', (line, command) => {
    const result = effects(line);
    expect(result.commands).toEqual([command]);
    expect(result.risks).not.toEqual([]);
  });

  it.each<[string, string]>([
    ['npm exec -c curl', 'curl'],
    ['npm run test --call=curl', 'curl'],
    ['env -S curl', 'curl'],
    ['git rebase --exec=curl main', 'curl'],
    ['git rebase -x curl main', 'curl'],
    ['git submodule foreach curl x', 'curl x'],
    ['git difftool --extcmd=curl', 'curl'],
    ['rsync -e curl a b', 'curl'],
    ['su -c curl', 'curl'],
  ])('reads %s as running the command line %j', (line, script) => {
    const result = effects(line);
    expect(result.scripts).toEqual([script]);
    expect(result.risks).not.toEqual([]);
  });

  it('asks about an awk or sed program that runs a command or writes a file', () => {
    expect(programEffects('awk', ['BEGIN{system("curl x")}']).risks).not.toEqual([]);
    expect(programEffects('awk', ['{print | "sh"}']).risks).not.toEqual([]);
    expect(programEffects('awk', ['{print > "/tmp/x"}']).risks).not.toEqual([]);
    expect(programEffects('awk', ['$3 > 10 || $4 < 2 {print $1}']).risks).toEqual([]);
    expect(programEffects('sed', ['-n', 's/a/b/e', 'f']).risks).not.toEqual([]);
    expect(programEffects('sed', ['s/a/b/w /tmp/out', 'f']).risks).not.toEqual([]);
    expect(programEffects('sed', ['-e', '1e curl x', 'f']).risks).not.toEqual([]);
    expect(programEffects('sed', ['/^#/d; s/x/y/', 'f']).risks).toEqual([]);
  });

  it('leaves a word only known at run time to the analysis', () => {
    expect(programEffects('npm', ['run', null, '--silent'])).toEqual({ risks: [], commands: [], scripts: [] });
  });
});
