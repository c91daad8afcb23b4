// Loaded into vigil by bench/loop-steps.ts only (`node --import ./bench/scale/stall-probe.mjs`), never
// shipped: a 1 ms interval notes every stretch in which the event loop ran no timer for longer than
// STALL_PROBE_MS, in microseconds of the monotonic clock the CPU profile's timestamps use, and writes
// them to STALL_PROBE_FILE on exit, so the profile's samples can be cut to the stalls.
import { writeFileSync } from 'node:fs';

const file = process.env.STALL_PROBE_FILE;
const minUs = Number(process.env.STALL_PROBE_MS ?? '15') * 1000;
const stalls = [];
const nowUs = () => Number(process.hrtime.bigint() / 1000n);
let last = nowUs();
setInterval(function stallProbeTick() {
  const now = nowUs();
  if (now - last > minUs) stalls.push([last, now]);
  last = now;
}, 1).unref();
process.on('exit', () => {
  if (file) writeFileSync(file, JSON.stringify(stalls));
});
