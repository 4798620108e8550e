import { spawn } from 'node:child_process';

export interface DockerCallOptions {
  /** Written to the command's stdin (secrets: never on a command line). */
  input?: string;
  /** Added to the docker CLI's environment (the stack file's `${…}` settings). */
  env?: Record<string, string>;
  /** The docker CLI's working directory, as the engine's side sees paths. */
  cwd?: string;
  timeoutMs?: number;
}

/** The docker CLI of one engine: the host's own, or a Docker-in-Docker node's through `docker exec`. */
export interface SwarmCli {
  docker(args: string[], options?: DockerCallOptions): Promise<string>;
  /** Where this process reaches a port published on that engine. */
  readonly address: string;
  /** The host address a published port binds to on that engine. */
  readonly publishAddress: string;
}

/** The host's engine (the one this process's `docker` talks to); ports on the loopback only. */
export function hostCli(): SwarmCli {
  return {
    address: '127.0.0.1',
    publishAddress: '127.0.0.1',
    docker: (args, options = {}) => runDocker(args, options, { ...process.env, ...options.env }, options.cwd),
  };
}

/** A Docker-in-Docker node's engine, at `ip` on the nodes' network. */
export function nodeCli(container: string, ip: string): SwarmCli {
  return {
    address: ip,
    publishAddress: '0.0.0.0',
    docker: (args, options = {}) => {
      const env = Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
      const cwd = options.cwd ? ['-w', options.cwd] : [];
      return runDocker(['exec', '-i', ...env, ...cwd, container, 'docker', ...args], options, process.env);
    },
  };
}

function runDocker(args: string[], options: DockerCallOptions, env: NodeJS.ProcessEnv, cwd?: string): Promise<string> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['pipe', 'pipe', 'pipe'], env, cwd });
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`docker ${args.join(' ')} ${signal ? `was killed after ${timeoutMs} ms` : `failed (${code})`}: ${err.trim()}`));
    });
    // Most commands exit without reading stdin: a write after that is no failure of theirs.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    if (options.input === undefined) child.stdin.end();
    else child.stdin.end(options.input);
  });
}
