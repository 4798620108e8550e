import type { K8sObject } from './k8s-render';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface NetworkPolicySpec {
  podSelector: LabelSelector;
  policyTypes?: ('Ingress' | 'Egress')[];
  ingress?: unknown[];
  egress?: { to?: { podSelector?: LabelSelector; namespaceSelector?: LabelSelector; ipBlock?: { cidr: string } }[]; ports?: { port?: number | string }[] }[];
}

/** Whether a label selector picks a pod with these labels (an empty selector picks every pod). */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    switch (operator) {
      case 'In':
        return key in labels && values.includes(labels[key] ?? '');
      case 'NotIn':
        return !(key in labels) || !values.includes(labels[key] ?? '');
      case 'Exists':
        return key in labels;
      case 'DoesNotExist':
        return !(key in labels);
    }
  });
  return byLabels && byExpressions;
}

export function networkPolicies(objects: K8sObject[]): { name: string; spec: NetworkPolicySpec }[] {
  return objects
    .filter((object) => object.kind === 'NetworkPolicy')
    .map((object) => ({ name: object.metadata.name, spec: object.spec as NetworkPolicySpec }));
}
