/** A gossip pool answer (`/v1/agent/members`) of `n` members, one in 50 failed, as the agent's bytes. */
export const gossipPoolBody = (n: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      Members: Array.from({ length: n }, (_, i) => ({
        Name: `server-${i}.global`,
        Addr: `10.0.${(i >> 8) & 255}.${i & 255}`,
        Tags: { region: 'global', dc: 'dc1', build: '1.9.3' },
        Status: i % 50 === 0 ? 'failed' : 'alive',
      })),
    }),
  );
