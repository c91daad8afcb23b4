/**
 * SIGTERM and SIGINT handlers installed before anything else runs, so that a stop asked for while
 * vigil is still starting (loading modules, reading the config, opening the store) is obeyed at
 * once with exit 0 instead of being lost: as PID 1 in a container a signal without a handler is
 * dropped by the kernel, and the stop would end in SIGKILL.
 */
export type StopAction = (signal: NodeJS.Signals) => void;

export interface StopSignals {
  /** What a stop does from now on (closing the server, stopping the daemon); runs at most once. */
  onStop(action: StopAction): void;
  /**
   * What SIGHUP does once vigil runs. A SIGHUP that arrived while it was starting (whose default
   * action would have killed it) is not lost: it runs the reload as soon as one is set.
   */
  onReload(action: () => void): void;
}

export function installStopSignals(proc: Pick<NodeJS.Process, 'on' | 'exit'> = process): StopSignals {
  let action: StopAction = () => proc.exit(0);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    action(signal);
  };
  let reload: (() => void) | undefined;
  let reloadPending = false;
  proc.on('SIGTERM', () => stop('SIGTERM'));
  proc.on('SIGINT', () => stop('SIGINT'));
  proc.on('SIGHUP', () => (reload ? reload() : void (reloadPending = true)));
  return {
    onStop: (next) => void (action = next),
    onReload: (next) => {
      reload = next;
      if (reloadPending) {
        reloadPending = false;
        next();
      }
    },
  };
}
