/** Supervised worker threads: the host side. A worker module imports './serve.ts' itself. */
export { superviseWorker } from './host'
export type { CallResult, Supervisor, SupervisorOptions, WorkerFailure, WorkerHealth } from './host'
export { failureOf } from './failure'
export { workerFile } from './file'
export type { Calls } from './protocol'
