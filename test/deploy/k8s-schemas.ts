import * as appsV1 from 'kubernetes-models/apps/v1';
import * as networkingV1 from 'kubernetes-models/networking.k8s.io/v1';
import * as policyV1 from 'kubernetes-models/policy/v1';
import * as coreV1 from 'kubernetes-models/v1';
import type { K8sObject } from './k8s-render';

interface ModelClass {
  apiVersion?: unknown;
  kind?: unknown;
  new (data: unknown): { validate(): void };
}

/** apiVersion/kind -> the model whose validate() checks an object against the API's OpenAPI schema. */
const models = new Map<string, ModelClass>();
for (const group of [coreV1, appsV1, policyV1, networkingV1]) {
  for (const candidate of Object.values(group) as ModelClass[]) {
    if (typeof candidate.apiVersion === 'string' && typeof candidate.kind === 'string') {
      models.set(`${candidate.apiVersion}/${candidate.kind}`, candidate);
    }
  }
}

/** What is wrong with one object by the Kubernetes API's schemas; empty when it validates. */
export function schemaErrors(object: K8sObject): string[] {
  const where = `${object.kind} ${object.metadata?.name ?? '(no name)'}`;
  const Model = models.get(`${object.apiVersion}/${object.kind}`);
  if (!Model) return [`${where}: no schema for ${object.apiVersion} ${object.kind} (an API this test does not know, or a typo)`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [`${where}: ${(err as Error).message}`];
  }
}
