import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { INestMicroservice } from '@nestjs/common';
import { toolsConfigSchema } from '@weft/config';
import { AppError, ErrorCode, Routes } from '@weft/contracts';
import { type RpcClient, connectRpcClient } from '@weft/messaging';
import pino from 'pino';
import type { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedService, startNats } from '../../../test/support/containers';
import { startToolsWorker } from './bootstrap';
import { gnuLongName, paxHeader, tarGz } from './testing/tar-fixtures';

const workspaceId = `ws_int${Date.now()}`;

describe('tools worker over NATS', () => {
  let nats: StartedService;
  let base: string;
  let worker: INestMicroservice;
  let rpc: { client: RpcClient; close: () => Promise<void> };

  beforeAll(async () => {
    nats = await startNats();
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-tools-int-')));
    await writeFile(join(base, 'secret.txt'), 'not yours');
    const config = toolsConfigSchema.parse({ NATS_URL: nats.url, WORKSPACES_DIR: join(base, 'workspaces') });
    worker = await startToolsWorker(config, pino({ level: 'silent' }));
    rpc = await connectRpcClient(nats.url, 10_000);
  });

  afterAll(async () => {
    await rpc?.close();
    await worker?.close();
    await nats?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('creates a workspace from a tar.gz', async () => {
    const archive = tarGz([
      { path: 'src/', type: 'Directory' },
      { path: 'src/main.py', content: 'print("hi")\n' },
    ]);
    expect(
      await rpc.client.request(Routes.toolsCreateWorkspace, { workspaceId, archiveBase64: archive.toString('base64') }),
    ).toEqual({ files: 1, bytes: 12 });
  });

  it('reads, writes and lists through tool calls', async () => {
    const call = Routes.toolsCall;
    expect(await rpc.client.request(call, { workspaceId, tool: 'read_file', arguments: { path: 'src/main.py' } })).toEqual({
      isError: false,
      output: '1\tprint("hi")',
    });
    const written = await rpc.client.request(call, {
      workspaceId,
      tool: 'write_file',
      arguments: { path: 'docs/notes.md', content: '# notes' },
    });
    expect(written.isError).toBe(false);
    expect(await rpc.client.request(call, { workspaceId, tool: 'list_directory', arguments: { path: '.' } })).toEqual({
      isError: false,
      output: 'docs/\nsrc/',
    });
  });

  it('searches, edits and exports the change as a patch', async () => {
    const call = Routes.toolsCall;
    expect(await rpc.client.request(call, { workspaceId, tool: 'search_files', arguments: { pattern: 'print\\(' } })).toEqual({
      isError: false,
      output: 'src/main.py:1: print("hi")',
    });
    const edited = await rpc.client.request(call, {
      workspaceId,
      tool: 'edit_file',
      arguments: { path: 'src/main.py', edits: [{ old: '"hi"', new: '"hello"' }] },
    });
    expect(edited.output).toContain('-print("hi")\n+print("hello")');
    const { patch, files } = await rpc.client.request(Routes.toolsExportPatch, { workspaceId });
    expect(files).toBe(2);
    expect(patch).toContain('diff --git a/src/main.py b/src/main.py');
    expect(patch).toContain('new file mode 100644\n--- /dev/null\n+++ b/docs/notes.md');
    const { workspaces } = await rpc.client.request(Routes.toolsWorkspaceUsage, { workspaceIds: [workspaceId] });
    expect(workspaces).toEqual([{ workspaceId, files: 2, bytes: 22 }]);
  });

  it('returns an escape attempt as an error result', async () => {
    const result = await rpc.client.request(Routes.toolsCall, {
      workspaceId,
      tool: 'read_file',
      arguments: { path: '../../secret.txt' },
    });
    expect(result).toMatchObject({ isError: true, errorCode: ErrorCode.PathOutsideWorkspace });
    expect(result.output).not.toContain('not yours');
  });

  it('reads a path for the gateway and maps a missing one to a typed error', async () => {
    const file = await rpc.client.request(Routes.toolsReadPath, { workspaceId, path: 'docs/notes.md' });
    expect(file).toEqual({ kind: 'file', size: 7, contentBase64: Buffer.from('# notes').toString('base64') });
    await expect(rpc.client.request(Routes.toolsReadPath, { workspaceId, path: 'nope' })).rejects.toMatchObject({
      code: ErrorCode.FileNotFound,
    });
  });

  it('exports the workspace as a tar.gz', async () => {
    const { archiveBase64 } = await rpc.client.request(Routes.toolsExportWorkspace, { workspaceId });
    const tar = gunzipSync(Buffer.from(archiveBase64, 'base64')).toString('latin1');
    expect(tar).toContain('docs/notes.md');
    expect(tar).toContain('print("hello")');
  });

  it('rejects a bad archive with TOOLS.ARCHIVE_REJECTED naming the entry', async () => {
    const evil = tarGz([{ path: '../evil.sh', content: 'rm -rf /' }]);
    const error = await rpc.client
      .request(Routes.toolsCreateWorkspace, { workspaceId: 'ws_evilarchive', archiveBase64: evil.toString('base64') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected, message: expect.stringContaining('../evil.sh') });
  });

  it('answers a name over 255 bytes with TOOLS.INVALID_PATH from every file tool, and creates nothing', async () => {
    const long = 'n'.repeat(300);
    const calls: Array<z.input<typeof Routes.toolsCall.request>> = [
      { workspaceId, tool: 'read_file', arguments: { path: `src/${long}` } },
      { workspaceId, tool: 'write_file', arguments: { path: `new/${long}/a.txt`, content: 'x' } },
      { workspaceId, tool: 'edit_file', arguments: { path: `src/${long}`, edits: [{ old: 'a', new: 'b' }] } },
      { workspaceId, tool: 'list_directory', arguments: { path: `new/${long}` } },
      { workspaceId, tool: 'glob', arguments: { pattern: '**', path: long } },
    ];
    for (const call of calls) {
      const result = await rpc.client.request(Routes.toolsCall, call);
      expect(result, call.tool).toMatchObject({ isError: true, errorCode: ErrorCode.InvalidPath });
      expect(result.output, call.tool).toContain(`the name '${'n'.repeat(60)}… (300 characters)' is 300 bytes long`);
      expect(result.output, call.tool).not.toContain(base);
    }
    expect(existsSync(join(base, 'workspaces', workspaceId, 'new'))).toBe(false);
  });

  it('answers a read of such a path for the gateway with TOOLS.INVALID_PATH', async () => {
    const error = await rpc.client.request(Routes.toolsReadPath, { workspaceId, path: `docs/${'n'.repeat(300)}` }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: ErrorCode.InvalidPath, details: { problem: 'name-too-long' } });
    expect((error as AppError).message).toContain('at most 255 bytes');
  });

  it('refuses archives whose long names hold a NUL byte, naming the entry escaped, and keeps nothing', async () => {
    for (const [n, name] of [paxHeader({ path: 'good.txt\0../../evil' }), gnuLongName('good.txt\0../../evil')].entries()) {
      const archive = tarGz([name, { path: 'x.txt', content: 'hi' }]);
      const target = `ws_nularchive${n}`;
      const error = await rpc.client.request(Routes.toolsCreateWorkspace, { workspaceId: target, archiveBase64: archive.toString('base64') }).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: ErrorCode.ArchiveRejected,
        message: "Archive rejected: entry 'good.txt\\0../../evil' has a NUL byte in its name; tar would silently cut it there",
      });
      expect(existsSync(join(base, 'workspaces', target))).toBe(false);
    }
  });

  it('refuses an archive with a 10,000-character name in words, without the host path', async () => {
    const archive = tarGz([paxHeader({ path: 'x'.repeat(10_000) }), { path: 'x.txt', content: 'hi' }]);
    const error = await rpc.client.request(Routes.toolsCreateWorkspace, { workspaceId: 'ws_longname01', archiveBase64: archive.toString('base64') }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.ArchiveRejected });
    const { message } = error as AppError;
    expect(message).toMatch(/^Archive rejected: entry 'x{200}… \(10000 characters\)' has a path the filesystem cannot hold/);
    expect(message).not.toContain(base);
    expect(message).not.toContain('ENAMETOOLONG');
    expect(message.length).toBeLessThan(600);
  });

  it('refuses to create an id that exists', async () => {
    await expect(rpc.client.request(Routes.toolsCreateWorkspace, { workspaceId })).rejects.toMatchObject({
      code: ErrorCode.Conflict,
    });
  });
});
