import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseFlags } from '../../../src/cli.js';
import { parseConfig } from '../../../src/config/load.js';
import { resolveShard } from '../../../src/config/sharding.js';
import { kustomize, only, validateBuilt, type Built } from '../../helpers/kustomize.js';
import { expandArgs, mountedSource, podEnv, podNames, podSpec } from '../../helpers/pod-spec.js';
import { tempDir } from '../../helpers/temp-dir.js';

const deploy = (path: string) => fileURLToPath(new URL(`../../../deploy/${path}`, import.meta.url));

describe('deploy/kubernetes-sharded (the HA and sharded overlay)', () => {
  let base: Built[];
  let sharded: Built[];
  const dir = tempDir('vigil-sharded-');
  beforeAll(() => {
    base = kustomize(deploy('kubernetes'));
    sharded = kustomize(deploy('kubernetes-sharded'));
  });
  const sts = () => only(sharded, 'StatefulSet');
  const container = () => podSpec(sts()).containers[0]!;
  const vigilYml = () => only(sharded, 'ConfigMap', 'vigil-config').data!['vigil.yml']!;

  type RawConfig = { alert_sink: { bearer_token_file: string; store: { postgres: { password_file: string; tls: { ca_file: string } } } } };
  /** Each file vigil.yml names, and the Secret and key it must be mounted from. */
  const namedFiles = (): Record<string, string> => {
    const raw = parse(vigilYml()) as RawConfig;
    const pg = raw.alert_sink.store.postgres;
    return {
      [raw.alert_sink.bearer_token_file]: 'vigil-sink-token/token',
      [pg.password_file]: 'vigil-postgres/password',
      [pg.tls.ca_file]: 'vigil-postgres-ca/ca.crt',
    };
  };
  /** vigil.yml through vigil's own loader, in one pod's environment, each mounted file faked under the temp dir. */
  const loadAsMounted = (pod: string) => {
    const paths = Object.keys(namedFiles());
    for (const path of paths) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), 'x\n');
    }
    const named = new RegExp(paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
    return parseConfig(
      vigilYml().replace(named, (p) => join(dir, p)),
      'vigil.yml',
      podEnv(container(), pod, sharded),
    );
  };

  it('kubectl kustomize builds the base and the overlay, every object valid against its schema', () => {
    for (const o of [...base, ...sharded]) expect(() => validateBuilt(o), `${o.kind} ${o.metadata.name}`).not.toThrow();
    // The overlay changes the base's objects and adds the database's host, nothing else.
    const kinds = (objects: Built[]) => objects.map((o) => `${o.kind}/${o.metadata.name.replace(/^(vigil-database)-[a-z0-9]{10}$/, '$1')}`).sort();
    expect(kinds(sharded)).toEqual([...kinds(base), 'ConfigMap/vigil-database'].sort());
    expect(sharded.filter((o) => o.kind !== 'Namespace').every((o) => o.metadata.namespace === 'vigil')).toBe(true);
  });

  it('gives each pod a shard of its own, 0 to N-1, of as many shards as the StatefulSet has replicas', () => {
    const set = sts();
    const shards = podNames(set).map((pod) => {
      const args = expandArgs(container().args, podEnv(container(), pod, sharded));
      expect(args.join(' '), `${pod}'s args still name a variable`).not.toMatch(/\$\(/);
      // As vigil resolves it at start: its flags, then the config's sharding block.
      const shard = resolveShard(parseFlags(args), loadAsMounted(pod).sharding);
      expect(shard.total, `${pod}: the shard count against the StatefulSet's replicas`).toBe(set.spec.replicas);
      return shard.ordinal;
    });
    expect(shards).toEqual([...Array(set.spec.replicas as number).keys()]);
  });

  it('ships three shards', () => {
    expect(sts().spec.replicas).toBe(3);
  });

  it('keeps the shard count in the args only: vigil.yml has no sharding key to disagree with them', () => {
    expect(Object.keys(parse(vigilYml()) as object)).not.toContain('sharding');
    expect(container().args).not.toContainEqual(expect.stringMatching(/^--shard=/));
  });

  it('reads vigil.yml of the ConfigMap, on PostgreSQL with TLS, each file where its Secret is mounted', () => {
    const pod = podSpec(sts());
    const c = container();
    const configFile = c.args.find((a) => a.startsWith('--config.file='))!.slice('--config.file='.length);
    expect(mountedSource(pod, c, configFile)).toEqual({ configMap: 'vigil-config', key: 'vigil.yml' });
    for (const [path, source] of Object.entries(namedFiles())) {
      const s = mountedSource(pod, c, path);
      expect(s && `${s.secret}/${s.key}`, path).toBe(source);
    }
    const store = loadAsMounted('vigil-0').alert_sink!.store;
    const pg = (parse(vigilYml()) as RawConfig).alert_sink.store.postgres;
    expect(store.path).toBeUndefined();
    const database = sharded.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('vigil-database-'))!;
    expect(store.postgres!.url).toMatchObject({ host: database.data!.host, user: 'vigil', database: 'vigil' });
    expect(store.postgres!.tls).toEqual({ mode: 'verify-full', ca_file: join(dir, pg.tls.ca_file) });
    expect(store.postgres!.password_file).toBe(join(dir, pg.password_file));
  });

  it('keeps no SQLite volume: no claim per pod, nothing mounted at the data directory', () => {
    expect(sts().spec.volumeClaimTemplates).toBeUndefined();
    expect(container().volumeMounts.map((m) => m.mountPath)).not.toContain('/var/lib/vigil');
    expect(podSpec(sts()).volumes.map((v) => v.name)).not.toContain('data');
  });

  it('gives vigil its secrets as files only: the environment holds the pod name and the database host', () => {
    expect(JSON.stringify(container())).not.toMatch(/secretKeyRef|envFrom/);
    expect((container().env ?? []).map((e) => e.name).sort()).toEqual(['POD_NAME', 'VIGIL_DB_HOST']);
  });

  it('scrapes every pod: the ServiceMonitor selects the Service, whose endpoints are every pod of the StatefulSet', () => {
    const sm = only(sharded, 'ServiceMonitor');
    const svc = only(sharded, 'Service');
    const podLabels = sts().spec.template.metadata.labels as Record<string, string>;
    expect(svc.metadata.labels).toMatchObject(sm.spec.selector.matchLabels);
    expect(podLabels).toMatchObject(svc.spec.selector);
    expect(sts().spec.selector.matchLabels).toEqual(svc.spec.selector);
    const portName = sm.spec.endpoints[0].port as string;
    expect(svc.spec.ports.map((p: { name: string }) => p.name)).toContain(portName);
    expect(container()).toMatchObject({ ports: [expect.objectContaining({ name: portName })] });
  });

  it('starts the shards together, one per node and spread over zones, and lets a drain take one at a time', () => {
    const set = sts();
    expect(set.spec.podManagementPolicy).toBe('Parallel');
    const spread = podSpec(set).topologySpreadConstraints!;
    expect(spread.map((s) => [s.topologyKey, s.whenUnsatisfiable, s.maxSkew])).toEqual([
      ['kubernetes.io/hostname', 'DoNotSchedule', 1],
      ['topology.kubernetes.io/zone', 'ScheduleAnyway', 1],
    ]);
    for (const s of spread) expect(set.spec.template.metadata.labels).toMatchObject(s.labelSelector.matchLabels);
    const pdb = only(sharded, 'PodDisruptionBudget');
    expect(pdb.spec.maxUnavailable).toBe(1);
    expect(set.spec.template.metadata.labels).toMatchObject(pdb.spec.selector.matchLabels);
  });

  it('requests the peak RSS of a shard of ~125,000 series, and twice that as the limit (deploy/README.md)', () => {
    const { requests, limits } = container().resources;
    const mib = (q: string) => Number(/^(\d+)Mi$/.exec(q)![1]);
    expect(mib(requests.memory!)).toBeGreaterThanOrEqual(282 + 149);
    expect(mib(limits.memory!)).toBeGreaterThanOrEqual(2 * mib(requests.memory!));
  });

  it('sends Alertmanager’s notifications to the Service, which any replica answers', () => {
    const am = only(sharded, 'AlertmanagerConfig');
    const url = am.spec.receivers.find((r: { name: string }) => r.name === 'vigil').webhookConfigs[0].url;
    expect(url).toBe(`http://${only(sharded, 'Service').metadata.name}.vigil.svc:9810/webhook/alertmanager`);
  });

  it('combines with the kube-prometheus-stack overlay, the component patching vigil in the chart’s namespace', () => {
    const dir = tempDir('vigil-combined-');
    const rel = (p: string) => relative(dir, deploy(p));
    const kustomization = {
      resources: [rel('kube-prometheus-stack')],
      components: [rel('kubernetes-sharded/component')],
      configMapGenerator: [{ name: 'vigil-database', namespace: 'monitoring', literals: ['host=db.example'] }],
    };
    writeFileSync(join(dir, 'kustomization.yaml'), JSON.stringify(kustomization));
    const objects = kustomize(dir);
    const set = only(objects, 'StatefulSet');
    expect(set.metadata.namespace).toBe('monitoring');
    expect(set.spec.replicas).toBe(3);
    expect(only(objects, 'ServiceMonitor').metadata.labels?.release).toBe('kube-prometheus-stack');
    expect(podEnv(podSpec(set).containers[0]!, 'vigil-0', objects).VIGIL_DB_HOST).toBe('db.example');
  });
});
