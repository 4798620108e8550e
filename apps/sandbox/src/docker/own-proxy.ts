import type Docker from 'dockerode';
import { PROXY_LABEL } from './container-runtime';

/**
 * The labels that say which deployment a container belongs to: compose's project, and the stack
 * of a Swarm task (Swarm's containers carry no compose label). Persisted by the engines; do not
 * rename.
 */
export const DEPLOYMENT_LABELS = ['com.docker.compose.project', 'com.docker.stack.namespace'] as const;

/**
 * The running proxy container (labelled `weft.proxy=1`) of the same compose project or Swarm stack
 * as the container `selfId`, on this engine: under Swarm, the proxy task of the sandbox worker's
 * own node. Undefined when `selfId` is no container (a worker outside Docker) or has no such label.
 */
export async function findOwnProxy(docker: Docker, selfId: string): Promise<string | undefined> {
  const self = await docker
    .getContainer(selfId)
    .inspect()
    .catch(() => undefined);
  const labels = self?.Config.Labels ?? {};
  for (const label of DEPLOYMENT_LABELS) {
    const deployment = labels[label];
    if (!deployment) continue;
    const proxies = await docker.listContainers({ filters: { label: [`${PROXY_LABEL}=1`, `${label}=${deployment}`] } });
    return proxies[0]?.Id;
  }
  return undefined;
}
