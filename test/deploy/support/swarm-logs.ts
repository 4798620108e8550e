import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docker, inNode, type SwarmNode } from './swarm-nodes';

/**
 * Writes the logs of every container of `stack` on each node that still answers (a stopped node
 * is skipped, not waited for) into `dir`, one file per container, for a failure's post-mortem.
 * Returns the directory.
 */
export async function dumpStackLogs(nodes: readonly SwarmNode[], stack: string, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  for (const node of nodes) {
    const listed = await inNode(node, ['ps', '-a', '--filter', `label=com.docker.stack.namespace=${stack}`, '--format', '{{.ID}} {{.Names}}'], 15_000).catch(() => '');
    for (const line of listed.split('\n').filter(Boolean)) {
      const [id, name] = line.split(' ') as [string, string];
      // stdout and stderr together: a crash's stack goes to stderr.
      const logs = await docker(['exec', node.name, 'sh', '-c', `docker logs --timestamps --tail 3000 ${id} 2>&1`], 30_000).catch((error: Error) => `(no logs: ${error.message})`);
      writeFileSync(join(dir, `${node.name}--${name.slice(0, 60)}.log`), logs);
    }
  }
  return dir;
}
