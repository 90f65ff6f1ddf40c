/** The calls between the commit worker and its checkpointer thread (./checkpoint-worker.ts). */

export interface CheckpointWorkerData {
  file: string
}

/** `walPages`: the WAL's length in pages when the checkpoint ran (how far the WAL grew);
 * `complete`: every page of it is in the database file now, so the next write starts the WAL from
 * its beginning again (false when commits came meanwhile, or a reader holds an older snapshot). */
export type CheckpointReply =
  { ok: true; walPages: number; complete: boolean } | { ok: false; message: string }

export type CheckpointCalls = {
  checkpoint(params: null): CheckpointReply
}
