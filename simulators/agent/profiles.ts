/**
 * `current`: a 1.9 agent. `0.x`: an agent of the 0.x releases, whose /v1/agent/self sends its
 * version as a string beside `VersionPrerelease`, no gossip `health_score`, no `raft.last_contact`,
 * no runtime `goroutines` and no `nomad.leader`/`leader_addr` (the shape of the agent-info
 * output published for 0.x).
 */
export const AGENT_PROFILES = ['current', '0.x'] as const;
export type AgentProfile = (typeof AGENT_PROFILES)[number];

type Json = Record<string, unknown>;
const without = (section: unknown, keys: string[]): unknown =>
  section && typeof section === 'object' ? Object.fromEntries(Object.entries(section).filter(([k]) => !keys.includes(k))) : section;

/** A /v1/agent/self answer as `profile` sends it. */
export function selfInProfile(body: Json, profile: AgentProfile): Json {
  if (profile === 'current') return body;
  const config = body.config as Json;
  const stats = body.stats as Record<string, unknown>;
  const version = (config.Version as Json | undefined)?.Version;
  return {
    ...body,
    config: { ...config, Version: typeof version === 'string' ? version.replace(/^1\./, '0.') : config.Version, VersionPrerelease: '' },
    stats: Object.fromEntries(
      Object.entries({
        ...stats,
        serf: without(stats.serf, ['health_score']),
        raft: without(stats.raft, ['last_contact']),
        runtime: without(stats.runtime, ['goroutines']),
        nomad: without(stats.nomad, ['leader', 'leader_addr']),
      }).filter(([, v]) => v !== undefined),
    ),
  };
}
