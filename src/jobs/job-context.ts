import pino from 'pino';
import type { Offload } from '../offload/pool.js';
import { Turns } from '../support/turns.js';
import { answersInFlight } from './answers-in-flight.js';
import type { BuildContext } from './context.js';

/**
 * What the collectors' jobs are built with, as the collection engine builds them, but writing to no
 * store and logging nothing: whoever runs the jobs itself (`--config.check.probe`, a test, a bench)
 * reads their parts.
 */
export const jobContext = (offload: Offload): BuildContext => ({
  store: { replace: () => undefined, replaceLater: () => undefined, replaceAll: () => undefined, removePrefix: () => undefined },
  log: pino({ level: 'silent' }),
  upstreamStats: new Map(),
  upstreamKeys: new Set(),
  clients: [],
  spacers: new Map(),
  turns: new Turns(),
  answers: answersInFlight(),
  offload,
  unpublished: new Map(),
});
