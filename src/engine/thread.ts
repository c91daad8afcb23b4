import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Config } from '../config/schema.js';
import { HEAP_GROWING_PERCENT, setHeapGrowth } from '../support/heap-growth.js';
import { startThread } from '../support/threads.js';
import type { ExpositionFormat, Snapshot } from '../metrics/snapshot.js';
import { BodyMirror, type BodyNote, type BodySource } from './body.js';
import type { Engine, EngineCollect, TargetView } from './collection-engine.js';
import type { Call, Note, ThreadData } from './messages.js';
import { collectionYoungGenerationMb, heapGrowingPercent, targetCount } from './young-generation.js';

type Pending = { resolve: (v: EngineCollect | null) => void; reject: (e: Error) => void };
type Request = Call extends infer C ? (C extends { id: number } ? Omit<C, 'id'> : never) : never;

/** How long after the collection thread died a new one starts. */
const RESTART_DELAY_MS = 1000;

/** The young generation of the thread started before any config (`collectionYoungGenerationMb` sizes the next). */
const FIRST_YOUNG_GENERATION_MB = collectionYoungGenerationMb(0);

/**
 * The engine and its snapshot store in a thread of their own. Decoding, checking, rendering and
 * laying out the body then happen off the main thread, whose event loop only takes in the new
 * pieces of the body and answers scrapes: a scrape never waits behind a collection, however big
 * its answers. The thread sends the body's changes and the targets' state as they happen; this
 * side applies them in order.
 *
 * Should the thread die (a bug, out of memory), it is logged and a new one starts on the last
 * config: the body it last sent is served until the new one has run every job once, and the
 * restart shows in the logs.
 */
export class CollectionThread implements Engine, BodySource {
  private worker: Worker;
  private serving = new BodyMirror();
  /** A restarted thread's body, served once each of its jobs has run. */
  private filling: BodyMirror | undefined;
  private readonly calls = new Map<number, Pending>();
  private nextId = 0;
  private state: { targets: TargetView[]; pending: string[] | undefined } = { targets: [], pending: undefined };
  private config?: Config;
  private stopping = false;
  /** False from the thread's death until a new one starts: calls meanwhile fail at once. */
  private alive = false;
  /** The running thread's young generation, in MiB. */
  private youngMb = FIRST_YOUNG_GENERATION_MB;
  /** How far every thread's old generation grows past what is alive, in percent (process-wide: `setHeapGrowth`). */
  private growthPercent = HEAP_GROWING_PERCENT;

  constructor(
    private readonly log: Logger,
    private readonly data: ThreadData,
    /** Where the thread's log lines go: the process's log. */
    private readonly out: NodeJS.WritableStream = process.stderr,
  ) {
    this.worker = this.start();
  }

  /**
   * The first config sizes the thread's young generation by its targets: the thread started
   * without one holds nothing yet, and is replaced by one of that size. A reload keeps the size (a
   * new thread would lose the counters of every job); a restart after a death takes the config's.
   * The first config sizes every thread's heap growth too (`heapGrowingPercent`), kept alike.
   */
  async applyJobs(config: Config): Promise<void> {
    const wanted = collectionYoungGenerationMb(targetCount(config));
    if (this.config === undefined) {
      this.growthPercent = heapGrowingPercent(targetCount(config));
      setHeapGrowth(this.growthPercent);
    }
    if (this.config === undefined && wanted !== this.youngMb && this.alive) {
      const idle = this.worker;
      this.youngMb = wanted;
      this.worker = this.start();
      void idle.terminate();
    }
    await this.call({ call: 'apply', config });
    this.config = config;
  }

  async collectNow(opts: { force?: boolean }): Promise<EngineCollect> {
    return (await this.call({ call: 'collect', force: opts.force === true }))!;
  }

  /** The running thread's young generation, in MiB. */
  get youngGenerationMb(): number {
    return this.youngMb;
  }

  /** How far every thread's old generation grows past what is alive, in percent. */
  get heapGrowingPercent(): number {
    return this.growthPercent;
  }

  targets(): TargetView[] {
    return this.state.targets;
  }

  pending(): string[] | undefined {
    return this.state.pending;
  }

  snapshot(format: ExpositionFormat): Snapshot {
    return this.serving.snapshot(format);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.call({ call: 'stop' }).catch(() => undefined);
    await this.worker.terminate();
  }

  private start(): Worker {
    const worker = startThread(import.meta.url, 'thread-entry', {
      workerData: this.data,
      resourceLimits: { maxYoungGenerationSizeMb: this.youngMb },
    });
    // A replaced thread's last words (an empty body) are not this one's.
    worker.on('message', (n: Note) => {
      if (this.worker === worker) this.hear(n);
    });
    const died = (why: string) => {
      if (this.worker !== worker || !this.alive) return;
      this.alive = false;
      for (const p of this.calls.values()) p.reject(new Error(`collection thread ${why}`));
      this.calls.clear();
      if (this.stopping) return;
      this.log.error({ err: why }, 'collection thread died; starting a new one');
      setTimeout(() => this.restart(), RESTART_DELAY_MS).unref();
    };
    worker.on('error', (e) => died(`failed: ${e.message}`));
    worker.on('exit', (code) => died(`exited with code ${code}`));
    // The HTTP server keeps vigil alive; this thread alone must not keep a stopped one.
    worker.unref();
    this.alive = true;
    return worker;
  }

  private restart(): void {
    if (this.stopping) return;
    if (this.config) this.youngMb = collectionYoungGenerationMb(targetCount(this.config));
    this.worker = this.start();
    const config = this.config;
    if (!config) return;
    this.filling = new BodyMirror();
    this.applyJobs(config).catch((e: Error) => this.log.error({ err: e.message }, 'collection thread restarted without its config'));
  }

  private hear(n: Note): void {
    switch (n.op) {
      case 'body':
        return this.takeBody(n);
      case 'log':
        this.out.write(n.line);
        return;
      case 'state':
        this.state = { targets: n.targets, pending: n.pending };
        return this.caughtUp();
      case 'changed': {
        const at = new Map(n.targets.map((v) => [`${v.collector}/${v.target}`, v]));
        this.state = { targets: this.state.targets.map((v) => at.get(`${v.collector}/${v.target}`) ?? v), pending: n.pending };
        return this.caughtUp();
      }
      case 'reply': {
        const p = this.calls.get(n.id);
        this.calls.delete(n.id);
        if (n.error !== undefined) p?.reject(new Error(n.error));
        else p?.resolve(n.ok ?? null);
      }
    }
  }

  /**
   * A body that does not fit the pieces held (a fault of vigil's own) is not served: the last one
   * stays, and a new thread sends its body whole.
   */
  private takeBody(n: BodyNote): void {
    try {
      (this.filling ?? this.serving).apply(n);
    } catch (e) {
      this.log.error({ err: (e as Error).message }, 'collection thread sent a body that does not fit; restarting it');
      void this.worker.terminate();
    }
  }

  /** A restarted thread's body is served once every job of the config has run in it. */
  private caughtUp(): void {
    if (this.filling && this.state.pending?.length === 0) {
      this.serving = this.filling;
      this.filling = undefined;
    }
  }

  private call(req: Request): Promise<EngineCollect | null> {
    const id = this.nextId++;
    if (!this.alive) return Promise.reject(new Error('collection thread is restarting'));
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ ...req, id });
    });
  }
}
