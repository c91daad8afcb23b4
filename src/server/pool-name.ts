/**
 * The name a client node pool goes by on the status page: clusters from before node pools list
 * their nodes under none. Imports nothing, so the page's browser bundle can use it.
 */
export const poolName = (pool: string) => (pool === '' ? '(no pool)' : pool);
