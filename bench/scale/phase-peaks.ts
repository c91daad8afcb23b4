import { writeFileSync } from 'node:fs';
import { rssBytes } from './children.js';

/**
 * The kernel's high-water mark of a process's RSS, phase by phase: `mark(phase)` takes the highest
 * RSS since the last mark (or since the process started) as that phase's, and resets the mark
 * (`/proc/<pid>/clear_refs`, "5"), so the next phase's peak is its own. The highest of them is the
 * whole run's peak, and the phase it belongs to says what set it (the collections, the scrapes
 * under load, a real Prometheus).
 */
export class PhasePeaks {
  private readonly peaks = new Map<string, number>();

  constructor(private readonly pid: number) {}

  /** Ends a phase: its peak, in bytes. */
  mark(phase: string): number {
    const peak = rssBytes(this.pid, true);
    this.peaks.set(phase, Math.max(peak, this.peaks.get(phase) ?? 0));
    writeFileSync(`/proc/${this.pid}/clear_refs`, '5');
    return peak;
  }

  /** The highest peak of every phase so far, in bytes (the process's own high-water mark if none has ended). */
  highest(): number {
    return Math.max(rssBytes(this.pid, true), ...this.peaks.values());
  }

  /** Each phase's peak in MiB, in the order they ended: `{"start": 249.1, ...}`. */
  byPhaseMib(): Record<string, number> {
    return Object.fromEntries([...this.peaks].map(([phase, bytes]) => [phase, Math.round((bytes / 2 ** 20) * 10) / 10]));
  }
}
