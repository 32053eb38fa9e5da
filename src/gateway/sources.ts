// The gateway's organisation sources (`[[sources]]`): what each is and how its last load went.

/** One source as the admin side reports it: names, counts and times, never values. */
export interface SourceStatus {
  name: string;
  type: string;
  groups: string[];
  /** Increments on every load that changed its values. */
  version: number;
  /** Values it currently holds (retired ones still retained not included). */
  values: number;
  /** Epoch ms of the last successful load. */
  lastLoadAt?: number;
  lastResult: 'ok' | 'error';
  /** The last failure's message (names a path or a command, never a value). */
  error?: string;
}
