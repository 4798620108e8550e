import { execFile } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { apiRoutes } from '@weft/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { modelsConfigSchema } from '../../apps/inference/src/registry/models-config.schema';
import { composeEnvironment, composeInterpolations } from '../../scripts/docs/compose-settings';
import { networkPolicies, selects } from './k8s-policies';
import { K8S_DIR, type K8sObject, kubectlVersion, makeSecrets, render, scratchCopy } from './k8s-render';
import { schemaErrors } from './k8s-schemas';
import { type Container, containerEnvironment, dataOf, find, podSpec, referencedObjects, workloads } from './k8s-workloads';

// `kubectl kustomize` renders deploy/k8s's base and each overlay; every object is checked against
// the Kubernetes API's OpenAPI schemas (kubernetes-models) and against what users rely on. No
// cluster is needed. CI installs kubectl where it is missing (.ci/run); without one this fails.
const ROOT = resolve(__dirname, '../..');
const run = promisify(execFile);
const GPU = 'nvidia.com/gpu';
// The compose services the cluster runs, and the workload each one is. The sandbox worker is not
// among them: it needs a Docker engine (docs/deploy-kubernetes.md).
const COMPOSE_TO_K8S: Record<string, [string, string]> = {
  gateway: ['Deployment', 'gateway'],
  inference: ['StatefulSet', 'inference'],
  tools: ['Deployment', 'tools'],
  nats: ['StatefulSet', 'nats'],
  proxy: ['Deployment', 'egress-proxy'],
};

// kubectl 1.20's kustomize (v2.0.3): the fields it reads; a newer field renders only on newer kubectl.
const KUSTOMIZE_V2_FIELDS = [
  'apiVersion', 'kind', 'namespace', 'namePrefix', 'nameSuffix', 'commonLabels', 'commonAnnotations', 'resources', 'bases',
  'patchesStrategicMerge', 'patchesJson6902', 'configMapGenerator', 'secretGenerator', 'generatorOptions', 'images', 'vars',
  'crds', 'configurations',
];

const renders = new Map<string, K8sObject[]>();
const secretsWritten = new Map<string, Record<string, string>>();
let overlays: string[] = [];
let removeScratch: (() => Promise<void>) | undefined;

function parseEnvFile(text: string): Record<string, string> {
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

function secretNamed(objects: K8sObject[], prefix: string): K8sObject {
  const secrets = objects.filter((object) => object.kind === 'Secret' && object.metadata.name.startsWith(`${prefix}-`));
  expect(secrets, `one generated Secret ${prefix}-<hash>`).toHaveLength(1);
  return secrets[0] as K8sObject;
}

beforeAll(async () => {
  console.log(await kubectlVersion());
  overlays = (await readdir(join(K8S_DIR, 'overlays'), { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name);
  // The base as committed, in place: it needs no secrets.
  renders.set('base', await render(join(K8S_DIR, 'base')));
  const scratch = await scratchCopy();
  removeScratch = scratch.remove;
  for (const overlay of overlays) {
    const dir = join(scratch.dir, 'overlays', overlay);
    await makeSecrets(dir);
    secretsWritten.set(overlay, parseEnvFile(await readFile(join(dir, 'secrets.env'), 'utf8')));
    renders.set(overlay, await render(dir));
  }
});

afterAll(async () => {
  await removeScratch?.();
});

describe('deploy/k8s', () => {
  it('has the CPU demo and NVIDIA GPU overlays', () => {
    expect(overlays).toEqual(expect.arrayContaining(['cpu-demo', 'nvidia-gpu']));
  });

  it("uses only what kustomize v2 knows, so Debian's kubectl 1.20 renders it as well as a current one", async () => {
    for (const dir of ['base', ...overlays.map((overlay) => `overlays/${overlay}`)]) {
      const kustomization = parse(await readFile(join(K8S_DIR, dir, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(kustomization).filter((key) => !KUSTOMIZE_V2_FIELDS.includes(key)), dir).toEqual([]);
      // v2 takes folders only under `bases`, and an env file only as `env` (v3 added `envs`).
      for (const entry of (kustomization.resources ?? []) as string[]) {
        expect((await stat(join(K8S_DIR, dir, entry))).isFile(), `${dir}: resources entry ${entry} is a file`).toBe(true);
      }
      const generators = [...((kustomization.configMapGenerator ?? []) as object[]), ...((kustomization.secretGenerator ?? []) as object[])];
      expect(generators.filter((generator) => 'envs' in generator), dir).toEqual([]);
    }
  });

  it('renders the base and every overlay into objects the Kubernetes API schemas accept', () => {
    for (const [name, objects] of renders) {
      expect(objects.length, name).toBeGreaterThan(10);
      expect(objects.flatMap(schemaErrors), name).toEqual([]);
    }
  });

  it('gives every container readiness and liveness probes and CPU and memory requests', () => {
    for (const [name, objects] of renders) {
      for (const workload of workloads(objects)) {
        for (const container of podSpec(workload).containers) {
          const where = `${name}: ${workload.kind} ${workload.metadata.name}/${container.name}`;
          expect(container.readinessProbe, `${where} readinessProbe`).toBeDefined();
          expect(container.livenessProbe, `${where} livenessProbe`).toBeDefined();
          expect(container.resources?.requests?.cpu, `${where} CPU request`).toBeDefined();
          expect(container.resources?.requests?.memory, `${where} memory request`).toBeDefined();
        }
      }
    }
  });

  it("runs two or more gateways behind a PodDisruptionBudget, probed on the gateway's own health routes", () => {
    for (const [name, objects] of renders) {
      const gateway = find(objects, 'Deployment', 'gateway');
      const spec = gateway.spec as { replicas: number; template: { metadata: { labels: Record<string, string> } } };
      expect(spec.replicas, name).toBeGreaterThanOrEqual(2);
      const [container] = podSpec(gateway).containers;
      expect(container?.readinessProbe?.httpGet?.path).toBe(apiRoutes.readyz.path);
      expect(container?.livenessProbe?.httpGet?.path).toBe(apiRoutes.healthz.path);
      const budgets = objects.filter((object) => object.kind === 'PodDisruptionBudget');
      const budget = budgets.find((object) => selects((object.spec as { selector: object }).selector, spec.template.metadata.labels));
      expect(budget, `${name}: a PodDisruptionBudget over the gateway pods`).toBeDefined();
      expect((budget?.spec as { minAvailable: number }).minAvailable).toBeGreaterThanOrEqual(1);
    }
  });

  it('gives each inference pod of the GPU overlay one NVIDIA GPU, models and KV-state volumes, and the CPU demo no GPU', () => {
    const gpu = find(renders.get('nvidia-gpu') ?? [], 'StatefulSet', 'inference');
    const [worker] = podSpec(gpu).containers;
    expect(worker?.resources?.limits?.[GPU]).toBe(1);
    expect(worker?.image).toMatch(/^weft\/inference-cuda:/);
    const mounts = (worker as unknown as { volumeMounts: { name: string; mountPath: string }[] }).volumeMounts;
    expect(mounts).toEqual(
      expect.arrayContaining([
        { name: 'models', mountPath: '/var/lib/weft/models' },
        { name: 'kv-state', mountPath: '/var/lib/weft/kv-state' },
      ]),
    );
    const claims = (gpu.spec as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates;
    expect(claims.map((claim) => claim.metadata.name)).toContain('kv-state');
    const demo = find(renders.get('cpu-demo') ?? [], 'StatefulSet', 'inference');
    expect(JSON.stringify(demo)).not.toContain(GPU);
  });

  it('keeps Redis on a persistent volume with its append-only file, and the workspaces on a claim of their own', () => {
    for (const [name, objects] of renders) {
      const redis = find(objects, 'StatefulSet', 'redis');
      expect((redis.spec as { volumeClaimTemplates: unknown[] }).volumeClaimTemplates, name).toHaveLength(1);
      expect((podSpec(redis).containers[0] as unknown as { args: string[] }).args.join(' ')).toContain('--appendonly yes');
      expect(referencedObjects(find(objects, 'Deployment', 'tools'))).toContain('PersistentVolumeClaim/weft-workspaces');
    }
  });

  it('denies all traffic by default and lets sandbox pods reach the egress proxy and nothing else', () => {
    for (const [name, objects] of renders) {
      const policies = networkPolicies(objects);
      const denyAll = policies.find(({ spec }) => Object.keys(spec.podSelector).length === 0);
      expect(denyAll?.spec.policyTypes, `${name}: a default-deny policy`).toEqual(['Ingress', 'Egress']);
      expect(denyAll?.spec.ingress ?? [], name).toEqual([]);
      expect(denyAll?.spec.egress ?? [], name).toEqual([]);
      const sandboxLabels = { 'app.kubernetes.io/name': 'weft', 'app.kubernetes.io/component': 'sandbox-session' };
      const egress = policies.filter(({ spec }) => selects(spec.podSelector, sandboxLabels)).flatMap(({ spec }) => spec.egress ?? []);
      expect(egress, name).toEqual([
        { to: [{ podSelector: { matchLabels: { 'app.kubernetes.io/component': 'egress-proxy' } } }], ports: [{ protocol: 'TCP', port: 3128 }] },
      ]);
      // Every Weft service has a policy of its own on top of the default deny.
      for (const workload of workloads(objects)) {
        const labels = (workload.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
        const own = policies.filter(({ spec }) => Object.keys(spec.podSelector).length > 0 && selects(spec.podSelector, labels));
        expect(own.length, `${name}: a NetworkPolicy for ${workload.metadata.name}`).toBeGreaterThan(0);
      }
    }
  });

  it('resolves every ConfigMap, Secret, secret key and volume claim the workloads name', () => {
    for (const [name, objects] of renders.entries()) {
      if (name === 'base') continue; // the base leaves the Secret to its overlays
      const present = new Set(objects.map((object) => `${object.kind}/${object.metadata.name}`));
      for (const workload of workloads(objects)) {
        for (const reference of referencedObjects(workload)) {
          expect(present.has(reference), `${name}: ${workload.metadata.name} names ${reference}`).toBe(true);
        }
        for (const container of podSpec(workload).containers) {
          for (const [variable, source] of containerEnvironment(objects, container)) {
            if ('secret' in source) expect(Object.keys(dataOf(objects, 'Secret', source.secret)), `${name}: ${variable}`).toContain(source.key);
          }
        }
      }
    }
  });

  it("takes its secrets from the overlay's own secrets.env and commits none", async () => {
    expect(renders.get('base')?.some((object) => object.kind === 'Secret')).toBe(false);
    for (const overlay of overlays) {
      const objects = renders.get(overlay) ?? [];
      const secret = secretNamed(objects, 'weft-secrets');
      const written = secretsWritten.get(overlay) ?? {};
      expect(dataOf(objects, 'Secret', secret.metadata.name)).toEqual(written);
      expect(written.WEFT_ADMIN_TOKEN?.length).toBeGreaterThanOrEqual(32);
      const example = parseEnvFile(await readFile(join(K8S_DIR, 'overlays', overlay, 'secrets.env.example'), 'utf8'));
      expect(Object.keys(example).sort()).toEqual(Object.keys(written).sort());
      expect(Object.values(example).every((value) => value === ''), `${overlay}: secrets.env.example holds no value`).toBe(true);
    }
    const { stdout } = await run('git', ['ls-files', 'deploy/k8s'], { cwd: ROOT });
    const committed = stdout.split('\n').filter(Boolean);
    expect(committed.filter((path) => path.endsWith('/secrets.env'))).toEqual([]);
    for (const path of committed.filter((file) => file.endsWith('.yaml'))) {
      expect(await readFile(join(ROOT, path), 'utf8'), `${path} holds a Secret`).not.toMatch(/^kind:\s*Secret\b/m);
    }
  });

  it('passes each service the environment the compose file gives it', async () => {
    const composeText = await readFile(join(ROOT, 'docker-compose.yml'), 'utf8');
    for (const [service, environment] of composeEnvironment(composeText)) {
      const target = COMPOSE_TO_K8S[service];
      if (!target) continue;
      for (const [name, objects] of renders) {
        const container = podSpec(find(objects, ...target)).containers[0];
        const k8s = containerEnvironment(objects, container ?? { name: '', image: '' });
        for (const [variable, composeValue] of environment) {
          if (variable === 'REDIS_URL') continue; // the cluster's Redis asks for a password: checked below
          const got = k8s.get(variable);
          const where = `${name}: ${service}'s ${variable}`;
          // `${NAME:?...}` must be given: a secret; `${NAME:-default}`: the default, or a secret of that name.
          const required = /^\$\{([A-Z0-9_]+):?\?/.exec(composeValue);
          const defaulted = /^\$\{([A-Z0-9_]+):?-([^}]*)\}$/.exec(composeValue);
          if (required || (defaulted && got !== undefined && 'secret' in got)) {
            expect(got, where).toMatchObject({ key: (required ?? defaulted)?.[1] });
          } else {
            expect(got, where).toEqual({ value: defaulted ? defaulted[2] : composeValue });
          }
        }
      }
    }
  });

  it("carries the compose stack's NATS users and demo models unchanged, and a GPU registry the workers accept", async () => {
    for (const file of ['nats.conf', 'nats-auth.conf']) {
      expect(await readFile(join(K8S_DIR, 'base/config', file), 'utf8'), file).toBe(await readFile(join(ROOT, 'docker', file), 'utf8'));
    }
    const demoModels = await readFile(join(K8S_DIR, 'base/config/models.json'), 'utf8');
    expect(demoModels).toBe(await readFile(join(ROOT, 'config/models.json'), 'utf8'));
    const gpuModels = JSON.parse(await readFile(join(K8S_DIR, 'overlays/nvidia-gpu/models.json'), 'utf8')) as unknown;
    expect(modelsConfigSchema.safeParse(gpuModels).error).toBeUndefined();
    const registry = (renders.get('nvidia-gpu') ?? []).find((object) => object.kind === 'ConfigMap' && object.metadata.name.startsWith('weft-models-'));
    expect(JSON.parse((registry?.data as Record<string, string>)['models.json'] ?? '{}')).toEqual(gpuModels);
  });

  it('puts Redis behind the password of the Secret, which the gateway sends in its REDIS_URL', () => {
    for (const [name, objects] of renders) {
      const [redis] = podSpec(find(objects, 'StatefulSet', 'redis')).containers;
      expect((redis as unknown as { args: string[] }).args.join(' '), name).toContain('--requirepass $(WEFT_REDIS_PASSWORD)');
      expect(containerEnvironment(objects, redis as Container).get('WEFT_REDIS_PASSWORD'), name).toMatchObject({ key: 'WEFT_REDIS_PASSWORD' });
      const [gateway] = podSpec(find(objects, 'Deployment', 'gateway')).containers;
      // $(NAME) is filled in only from a variable defined earlier in the list.
      const names = (gateway?.env ?? []).map((variable) => variable.name);
      expect(names.indexOf('WEFT_REDIS_PASSWORD'), name).toBeGreaterThanOrEqual(0);
      expect(names.indexOf('WEFT_REDIS_PASSWORD'), name).toBeLessThan(names.indexOf('REDIS_URL'));
      expect(containerEnvironment(objects, gateway as Container).get('REDIS_URL')).toEqual({ value: 'redis://:$(WEFT_REDIS_PASSWORD)@redis:6379' });
    }
  });

  it("runs the sandbox host's sandbox and proxy as docker-compose.yml does, less what the cluster provides", async () => {
    const main = composeEnvironment(await readFile(join(ROOT, 'docker-compose.yml'), 'utf8'));
    const hostText = await readFile(join(K8S_DIR, 'sandbox-host/docker-compose.yml'), 'utf8');
    const host = composeEnvironment(hostText);
    // Where the cluster's NATS, Redis and workspaces are differs; everything else is the same.
    const ownToTheHost = ['NATS_URL', 'REDIS_URL', 'NATS_PASSWORD', 'WORKSPACES_VOLUME', 'WORKSPACES_HOST_DIR'];
    const hostSandbox = host.get('sandbox') ?? new Map<string, string>();
    for (const [variable, value] of main.get('sandbox') ?? []) {
      if (!ownToTheHost.includes(variable)) expect(hostSandbox.get(variable), `the sandbox host's ${variable}`).toBe(value);
    }
    expect(host.get('proxy')).toEqual(main.get('proxy'));
    const required = composeInterpolations(hostText).filter((one) => one.requiredMessage !== undefined).map((one) => one.variable);
    expect(new Set(required)).toEqual(new Set(['WEFT_WORKSPACES_HOST_DIR', 'WEFT_NATS_URL', 'WEFT_NATS_PASSWORD', 'WEFT_REDIS_URL']));
  });

  it('ships examples that the Kubernetes API schemas accept', async () => {
    for (const file of await readdir(join(K8S_DIR, 'examples'))) {
      const objects = parseAllDocuments(await readFile(join(K8S_DIR, 'examples', file), 'utf8')).map((document) => document.toJSON() as K8sObject);
      expect(objects.length, file).toBeGreaterThan(0);
      expect(objects.flatMap(schemaErrors), file).toEqual([]);
    }
  });

  it("names every image it runs in the overlay's images list, so a registry and tag can be set in one place", async () => {
    for (const overlay of overlays) {
      const kustomization = parse(await readFile(join(K8S_DIR, 'overlays', overlay, 'kustomization.yaml'), 'utf8')) as { images?: { name: string }[] };
      const listed = new Set((kustomization.images ?? []).map((image) => image.name));
      for (const workload of workloads(renders.get(overlay) ?? [])) {
        for (const container of podSpec(workload).containers) {
          const repository = container.image.replace(/:[^:/]+$/, '');
          expect(listed.has(repository), `${overlay}: ${container.image} in images:`).toBe(true);
        }
      }
    }
  });
});
