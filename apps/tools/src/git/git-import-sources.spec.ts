import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type AppError, ErrorCode, type GitSource } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceService } from '../workspace/workspace.service';
import { WorkspaceStore } from '../workspace/workspace-store';
import { GitCloner } from './git-cloner';
import { GitImporter } from './git-importer';

/**
 * Where a git import may read from, on real git: not through a redirect, not with credentials in
 * the URL (which must then appear in no error and no log line), not from the workspaces volume.
 */
const TOKEN = 'ghp_tok3nThatMustNeverShow';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Weft Test', '-c', 'user.email=test@weft.invalid', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

/** A one-commit repository in `dir`: bare (served over HTTP) or with a work tree. */
async function repo(dir: string, bare: boolean): Promise<void> {
  const work = bare ? `${dir}-work` : dir;
  await mkdir(work, { recursive: true });
  git(work, 'init', '-q');
  await writeFile(join(work, 'README.md'), 'secret plans\n');
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', 'first');
  if (!bare) return;
  git(join(dir, '..'), 'clone', '-q', '--bare', work, dir);
}

interface Http {
  server: Server;
  port: number;
  requests: string[];
}

async function listen(handler: Parameters<typeof createServer>[1] & object): Promise<Http> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

/** git's smart HTTP protocol (shallow clones need it): `git http-backend` as a CGI. */
function serveRepos(root: string) {
  return listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const backend = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    req.pipe(backend.stdin);
    const chunks: Buffer[] = [];
    backend.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    backend.on('close', () => {
      const out = Buffer.concat(chunks);
      const end = out.indexOf('\r\n\r\n');
      const headers = out.subarray(0, end).toString().split('\r\n').map((line) => line.split(/:\s*/, 2) as [string, string]);
      const status = Number(headers.find(([name]) => name.toLowerCase() === 'status')?.[1]?.split(' ')[0] ?? 200);
      res.writeHead(status, Object.fromEntries(headers.filter(([name]) => name.toLowerCase() !== 'status')));
      res.end(out.subarray(end + 4));
    });
  });
}

describe('git import sources', () => {
  let base: string;
  let workspacesDir: string;
  let servers: Http[];
  let lines: string[];

  const importer = (allowedHosts: string[]) => {
    const logger = pino(
      { level: 'debug' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const store = new WorkspaceStore(workspacesDir);
    const limits = { maxBytes: 100_000, maxEntries: 100 };
    const git = new GitImporter(store, new GitCloner(), limits, { allowedHosts, cloneTimeoutMs: 20_000, workspacesDir }, logger);
    return new WorkspaceService(store, limits, logger, git);
  };
  const importing = (allowedHosts: string[], source: GitSource) =>
    importer(allowedHosts)
      .create({ workspaceId: 'ws_importer01', git: source })
      .then(() => null, (e: unknown) => e as AppError);
  const imported = async () => (await readdir(workspacesDir).catch(() => [])).filter((n) => n === 'ws_importer01');

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-git-src-')));
    workspacesDir = join(base, 'workspaces');
    await mkdir(workspacesDir);
    servers = [];
    lines = [];
  });
  afterEach(async () => {
    for (const { server } of servers) server.closeAllConnections();
    await Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
    await rm(base, { recursive: true, force: true });
  });

  it('clones over plain HTTP from an allowed host', async () => {
    await repo(join(base, 'served', 'project.git'), true);
    const origin = await serveRepos(join(base, 'served'));
    servers.push(origin);
    expect(await importing(['127.0.0.1'], { url: `http://127.0.0.1:${origin.port}/project.git` })).toBeNull();
    expect(await imported()).toEqual(['ws_importer01']);
  });

  it('does not follow a redirect from an allowed host to another one', async () => {
    await repo(join(base, 'served', 'project.git'), true);
    const elsewhere = await serveRepos(join(base, 'served'));
    const allowed = await listen((req, res) => res.writeHead(301, { location: `http://localhost:${elsewhere.port}${req.url ?? '/'}` }).end());
    servers.push(elsewhere, allowed);

    const error = await importing(['127.0.0.1'], { url: `http://127.0.0.1:${allowed.port}/project.git` });
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected, message: expect.stringContaining('301, a redirect, which is not followed') });
    expect(allowed.requests.length).toBeGreaterThan(0);
    expect(elsewhere.requests).toEqual([]);
    expect(await imported()).toEqual([]);
  });

  it.each([
    ['a token as the user name', (port: number) => `http://${TOKEN}@127.0.0.1:${port}/project.git`],
    ['a user name and password', (port: number) => `http://me:${TOKEN}@127.0.0.1:${port}/project.git`],
    ['a user name and password on a host not on the list', (port: number) => `http://me:${TOKEN}@localhost:${port}/project.git`],
  ])('refuses %s before running git, the token in no error and no log line', async (_name, url) => {
    await repo(join(base, 'served', 'project.git'), true);
    const origin = await serveRepos(join(base, 'served'));
    servers.push(origin);

    // An unknown ref makes the clone fail where it is let through: its error would quote the URL.
    const error = await importing(['127.0.0.1'], { url: url(origin.port), ref: 'nope' });
    expect(error).toMatchObject({ code: ErrorCode.ValidationFailed, message: expect.stringContaining('user name or password') });
    expect(JSON.stringify({ message: error?.message, details: error?.details })).not.toContain(TOKEN);
    expect(lines.join('')).not.toContain(TOKEN);
    expect(origin.requests).toEqual([]);
  });

  it("refuses a file:// URL into the workspaces volume (another user's workspace), directly or through a link", async () => {
    const other = join(workspacesDir, 'ws_theirs0001');
    await repo(other, false);
    await symlink(other, join(base, 'innocent'));
    for (const url of [`file://${other}`, `file://${join(base, 'innocent')}`, `file://${workspacesDir}/ws_x/../ws_theirs0001`, `file://${workspacesDir}`]) {
      const error = await importing(['file'], { url });
      expect(error, url).toMatchObject({ code: ErrorCode.Forbidden, message: expect.stringContaining('workspaces volume') });
    }
    expect(await imported()).toEqual([]);

    // A mirror elsewhere on the server still imports.
    await repo(join(base, 'mirror'), false);
    expect(await importing(['file'], { url: `file://${join(base, 'mirror')}` })).toBeNull();
  });
});
