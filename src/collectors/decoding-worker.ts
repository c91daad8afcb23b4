import { serveTasks } from '../offload/serve-tasks.js';
import { TASKS } from './decoding.js';
// Every collector's endpoints declared here too, for the answers decoded by their schema (`decodeAnswer`).
import './index.js';

/** Entry of a decoding worker thread: the collectors' decoding tasks. */
serveTasks(TASKS);
