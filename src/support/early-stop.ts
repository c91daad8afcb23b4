import { installStopSignals } from './stop-signals.js';

/** Imported first by main.ts: the handlers exist before the other modules are even loaded. */
export const stopSignals = installStopSignals();
