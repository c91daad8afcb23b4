import type { Built } from './kustomize.js';

/** The parts of a built pod template the shipped-manifest tests read. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; configMapKeyRef?: { name: string; key: string }; secretKeyRef?: unknown };
}
export interface Container {
  name: string;
  args: string[];
  env?: EnvVar[];
  volumeMounts: { name: string; mountPath: string }[];
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}
export interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  configMap?: { name: string; items?: { key: string; path: string }[] };
}
export interface PodSpec {
  containers: Container[];
  volumes: Volume[];
  topologySpreadConstraints?: { topologyKey: string; whenUnsatisfiable: string; maxSkew: number; labelSelector: { matchLabels: Record<string, string> } }[];
}

export const podSpec = (sts: Built) => sts.spec.template.spec as PodSpec;

/** The names a StatefulSet gives its pods: `<name>-0` … `<name>-<replicas-1>`. */
export const podNames = (sts: Built): string[] => Array.from({ length: sts.spec.replicas as number }, (_, i) => `${sts.metadata.name}-${i}`);

/** A container's environment in one pod, as the kubelet sets it (the downward API and ConfigMaps of the build). */
export function podEnv(c: Container, pod: string, objects: Built[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const v of c.env ?? []) {
    const from = v.valueFrom;
    if (v.value !== undefined) env[v.name] = v.value;
    else if (from?.fieldRef?.fieldPath === 'metadata.name') env[v.name] = pod;
    else if (from?.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const cm = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === ref.name);
      const value = cm?.data?.[ref.key];
      if (value === undefined) throw new Error(`${v.name}: ConfigMap ${ref.name} with key ${ref.key} is not in the build`);
      env[v.name] = value;
    } else throw new Error(`${v.name}: a source these tests do not resolve: ${JSON.stringify(from)}`);
  }
  return env;
}

/** The args as the kubelet passes them: `$(VAR)` replaced by the container's variable VAR. */
export const expandArgs = (args: string[], env: Record<string, string>) =>
  args.map((a) => a.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, n: string) => env[n] ?? m));

/** Which Secret or ConfigMap key a file path in the container is, through its mounts; undefined when none. */
export function mountedSource(pod: PodSpec, c: Container, path: string): { secret?: string; configMap?: string; key: string } | undefined {
  for (const m of c.volumeMounts) {
    if (!path.startsWith(`${m.mountPath}/`)) continue;
    const file = path.slice(m.mountPath.length + 1);
    const vol = pod.volumes.find((v) => v.name === m.name);
    const src = vol?.secret ?? vol?.configMap;
    const key = src?.items ? src.items.find((i) => i.path === file)?.key : file;
    if (!src || key === undefined) return undefined;
    return vol?.secret ? { secret: vol.secret.secretName, key } : { configMap: vol!.configMap!.name, key };
  }
  return undefined;
}
