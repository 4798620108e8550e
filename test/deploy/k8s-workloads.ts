import type { K8sObject } from './k8s-render';

export interface Container {
  name: string;
  image: string;
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
}

interface Probe {
  httpGet?: { path?: string; port: number | string };
  exec?: { command: string[] };
  tcpSocket?: { port: number | string };
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; fieldRef?: { fieldPath: string } };
}

export interface PodSpec {
  containers: Container[];
  volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; persistentVolumeClaim?: { claimName: string } }[];
}

export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'];

export function workloads(objects: K8sObject[]): K8sObject[] {
  return objects.filter((object) => WORKLOAD_KINDS.includes(object.kind));
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((object) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in the render`);
  return found;
}

export function podSpec(workload: K8sObject): PodSpec {
  return (workload.spec as { template: { spec: PodSpec } }).template.spec;
}

/** The data of a ConfigMap or Secret by its rendered (hashed) name; Secret values decoded. */
export function dataOf(objects: K8sObject[], kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> {
  const data = (find(objects, kind, name).data ?? {}) as Record<string, string>;
  if (kind === 'ConfigMap') return data;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]));
}

/** Where a container's variable comes from: a literal value, or a key of a Secret. */
export type EnvSource = { value: string } | { secret: string; key: string };

/** A container's environment as the pod will see it: envFrom ConfigMaps first, then env (which wins). */
export function containerEnvironment(objects: K8sObject[], container: Container): Map<string, EnvSource> {
  const environment = new Map<string, EnvSource>();
  for (const source of container.envFrom ?? []) {
    if (!source.configMapRef) continue;
    for (const [key, value] of Object.entries(dataOf(objects, 'ConfigMap', source.configMapRef.name))) {
      environment.set(key, { value });
    }
  }
  for (const variable of container.env ?? []) {
    const secretRef = variable.valueFrom?.secretKeyRef;
    if (secretRef) environment.set(variable.name, { secret: secretRef.name, key: secretRef.key });
    else if (variable.value !== undefined) environment.set(variable.name, { value: variable.value });
  }
  return environment;
}

/** Every ConfigMap, Secret and PVC a workload names, as `Kind/name`. */
export function referencedObjects(workload: K8sObject): string[] {
  const spec = podSpec(workload);
  const names = new Set<string>();
  for (const volume of spec.volumes ?? []) {
    if (volume.configMap) names.add(`ConfigMap/${volume.configMap.name}`);
    if (volume.secret) names.add(`Secret/${volume.secret.secretName}`);
    if (volume.persistentVolumeClaim) names.add(`PersistentVolumeClaim/${volume.persistentVolumeClaim.claimName}`);
  }
  for (const container of spec.containers) {
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) names.add(`ConfigMap/${source.configMapRef.name}`);
      if (source.secretRef) names.add(`Secret/${source.secretRef.name}`);
    }
    for (const variable of container.env ?? []) {
      const secretRef = variable.valueFrom?.secretKeyRef;
      if (secretRef && !secretRef.optional) names.add(`Secret/${secretRef.name}`);
    }
  }
  return [...names];
}
