import type { RenderedGroup } from './render.js';
import type { SnapshotStore } from './snapshot-store.js';

/** What a group shows now; undefined leaves the group as it is. Must not throw or reject. */
export type GroupRender = () => RenderedGroup | undefined | Promise<RenderedGroup | undefined>;

/**
 * One snapshot-store group rendered at most every `everyMs`: a flood of changes (refused requests
 * included) costs one render per interval, in a later turn, not one per change.
 */
export class ThrottledGroup {
  private timer?: NodeJS.Timeout | undefined;
  private running?: Promise<void> | undefined;
  private dirty = false;
  private last = -Infinity;

  constructor(
    private readonly store: SnapshotStore,
    readonly key: string,
    private readonly render: GroupRender,
    private readonly everyMs = 1000,
  ) {}

  /** Something the group shows changed: renders once, in a later turn, at most once per interval. */
  changed(): void {
    this.dirty = true;
    if (this.timer || this.running) return;
    const wait = Math.max(0, this.last + this.everyMs - performance.now());
    this.timer = setTimeout(() => void this.publish(), wait).unref();
  }

  /** Renders now (a scheduled render is dropped); a synchronous render is in the store on return. */
  publish(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = false;
    this.last = performance.now();
    const out = this.render();
    if (!(out instanceof Promise)) return Promise.resolve(this.put(out));
    const running: Promise<void> = out
      .then((g) => this.put(g))
      .finally(() => {
        if (this.running === running) this.running = undefined;
        if (this.dirty) this.changed();
      });
    this.running = running;
    return running;
  }

  /** Drops a scheduled render and waits for a running one (before what it reads goes away). */
  async settle(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Renders a change still waiting for its interval now. */
  async flush(): Promise<void> {
    await this.settle();
    if (this.dirty) await this.publish();
  }

  /** Removes the group from the store. */
  clear(): void {
    this.store.replace(this.key, new Map());
  }

  private put(g: RenderedGroup | undefined): void {
    if (g) this.store.replace(this.key, g);
  }
}
