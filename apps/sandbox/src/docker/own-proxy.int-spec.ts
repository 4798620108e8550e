import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { afterAll, describe, expect, it } from 'vitest';
import { findOwnProxy } from './own-proxy';

// Containers labelled as compose and Swarm label theirs, on the real engine: the worker's "self"
// and proxies of its own deployment and of others beside it (as on a node that runs two stacks).
const IMAGE = process.env.WEFT_SANDBOX_IMAGE ?? 'weft/sandbox-runtime:latest';
const tag = randomBytes(4).toString('hex');
const made: string[] = [];

function container(name: string, labels: Record<string, string>, running = true): string {
  const args = ['create', '--name', `weft-own-proxy-${tag}-${name}`, '--label', 'weft.test=own-proxy', ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]), IMAGE, 'sleep', '600'];
  const id = execFileSync('docker', args, { encoding: 'utf8' }).trim();
  made.push(id);
  if (running) execFileSync('docker', ['start', id]);
  return id;
}

describe("the sandbox worker's own package proxy", () => {
  const docker = new Docker({ socketPath: '/var/run/docker.sock' });

  afterAll(() => {
    if (made.length > 0) execFileSync('docker', ['rm', '-f', ...made]);
  });

  it("is its Swarm stack's proxy task on this engine, not another stack's or a compose project's", async () => {
    const stack = `weft-${tag}`;
    const self = container('swarm-self', { 'com.docker.stack.namespace': stack });
    container('other-stack-proxy', { 'weft.proxy': '1', 'com.docker.stack.namespace': `other-${tag}` });
    container('compose-proxy', { 'weft.proxy': '1', 'com.docker.compose.project': stack });
    container('stopped-proxy', { 'weft.proxy': '1', 'com.docker.stack.namespace': stack }, false);
    const proxy = container('swarm-proxy', { 'weft.proxy': '1', 'com.docker.stack.namespace': stack });
    // By the short id, as a container's host name gives it.
    expect(await findOwnProxy(docker, self.slice(0, 12))).toBe(proxy);
  });

  it("is its compose project's proxy", async () => {
    const project = `weft-compose-${tag}`;
    const self = container('compose-self', { 'com.docker.compose.project': project });
    const proxy = container('compose-own-proxy', { 'weft.proxy': '1', 'com.docker.compose.project': project });
    expect(await findOwnProxy(docker, self.slice(0, 12))).toBe(proxy);
  });

  it('is none for a worker outside any deployment, or outside a container', async () => {
    const loose = container('loose-self', {});
    expect(await findOwnProxy(docker, loose.slice(0, 12))).toBeUndefined();
    expect(await findOwnProxy(docker, `not-a-container-${tag}`)).toBeUndefined();
  });
});
