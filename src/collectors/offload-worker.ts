import { serveTasks } from '../offload/serve-tasks.js';
import { TASKS } from './offload-tasks.js';

/** Entry of a collection offload worker thread: the collectors' tasks. */
serveTasks(TASKS);
