/** The benches (bench/) start vigil from this path; the one helper lives in process.ts. */
export { spawnVigil, type SpawnOptions, type VigilProcess } from './process.js';
