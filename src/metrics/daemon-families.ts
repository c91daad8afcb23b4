import { family, single, type Family } from './family.js';

/** vigil's own identity and the state of its configuration, rendered by the daemon. */
export interface DaemonStats {
  version: string;
  revision: string;
  branch: string;
  lastReloadOk: boolean;
  lastReloadSuccessSeconds: number;
}

export const daemonFamilies: readonly Family<DaemonStats>[] = [
  family<DaemonStats>({
    name: 'vigil_build_info',
    help: 'Version, revision and branch vigil was built from, and the Node.js runtime it runs on (always 1).',
    type: 'gauge',
    section: 'vigil',
    labels: ['version', 'revision', 'branch', 'nodejs_version'],
    samples: (d) => [{ labels: { version: d.version, revision: d.revision, branch: d.branch, nodejs_version: process.versions.node }, value: 1 }],
  }),
  family<DaemonStats>({
    name: 'vigil_config_last_reload_successful',
    help: '1 when the last configuration (re)load succeeded, 0 when the last attempt was rejected and the previous config runs on.',
    type: 'gauge',
    section: 'vigil',
    labels: [],
    samples: single((d) => d.lastReloadOk),
  }),
  family<DaemonStats>({
    name: 'vigil_config_last_reload_success_timestamp_seconds',
    help: 'When the configuration was last loaded successfully, as Unix time.',
    type: 'gauge',
    section: 'vigil',
    labels: [],
    samples: single((d) => d.lastReloadSuccessSeconds),
  }),
];
