import { serveTasks } from '../offload/serve-tasks.js';
import { TASKS } from './decoding.js';

/** Entry of a decoding worker thread: the collectors' decoding tasks. */
serveTasks(TASKS);
