import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { installStopSignals } from '../../../src/support/stop-signals.js';

function fakeProcess() {
  const events = new EventEmitter();
  const exits: number[] = [];
  return { events, exits, proc: { on: events.on.bind(events), exit: (code?: number) => void exits.push(code ?? 0) } as never };
}

describe('stop signals', () => {
  it('exit 0 at once when a stop arrives before vigil has started', () => {
    const f = fakeProcess();
    installStopSignals(f.proc);
    f.events.emit('SIGTERM');
    expect(f.exits).toEqual([0]);
  });

  it('run the action set once started, once, for SIGTERM or SIGINT', () => {
    const f = fakeProcess();
    const seen: string[] = [];
    installStopSignals(f.proc).onStop((s) => seen.push(s));
    f.events.emit('SIGINT');
    f.events.emit('SIGTERM');
    expect(seen).toEqual(['SIGINT']);
    expect(f.exits).toEqual([]);
  });

  it('a SIGHUP during start-up is kept and runs the reload once one is set; later ones run at once', () => {
    const f = fakeProcess();
    const signals = installStopSignals(f.proc);
    let reloads = 0;
    f.events.emit('SIGHUP');
    f.events.emit('SIGHUP');
    expect(f.exits).toEqual([]);
    signals.onReload(() => void reloads++);
    expect(reloads).toBe(1);
    f.events.emit('SIGHUP');
    expect(reloads).toBe(2);
  });
});
