import type { Logger } from 'pino';
import type { AlertStoreConfig } from '../config-fields/alert-sink.js';
import { timerMs } from '../config-fields/units.js';
import type { AlertStore } from './store/alert-store.js';

/** Retention: deletes what is older than `retention` every `prune_interval`, and says when it did (`onPruned`). */
export class Pruner {
  constructor(
    private readonly store: AlertStore,
    private readonly cfg: AlertStoreConfig,
    private readonly deps: { log: Logger; now: () => number; onPruned: () => void },
  ) {}

  timer(): NodeJS.Timeout {
    return setInterval(() => void this.run(), timerMs(this.cfg.prune_interval)).unref();
  }

  /** Prunes once; never rejects (a failure is logged, and the next round tries again). */
  async run(): Promise<void> {
    try {
      const pruned = await this.store.prune(this.deps.now() - this.cfg.retention);
      if (pruned.notifications + pruned.transitions + pruned.alerts + (pruned.receivers ?? 0) === 0) return;
      this.deps.log.info(pruned, 'pruned alert history past retention');
      this.deps.onPruned();
    } catch (e) {
      this.deps.log.error({ err: (e as Error).message }, 'cannot prune alert history');
    }
  }
}
