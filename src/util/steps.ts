// Long loops written once as generators that yield now and then, run either at once or in slices that
// give the event loop back (a gateway reload assembling 20,000 entries while requests are in flight).

/** A computation that yields (nothing) at points where it may pause, and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Resolves once the event loop has served what is waiting (I/O included): a point where a long job gives way. */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Runs the steps to the end in one go. */
export function runSteps<T>(steps: Steps<T>): T {
  let next = steps.next();
  while (next.done !== true) next = steps.next();
  return next.value;
}

/** Runs the steps, giving the event loop back (setImmediate) whenever a slice has run `sliceMs`. */
export async function runStepsSliced<T>(steps: Steps<T>, sliceMs: number): Promise<T> {
  let start = performance.now();
  let next = steps.next();
  while (next.done !== true) {
    if (performance.now() - start > sliceMs) {
      await nextTask();
      start = performance.now();
    }
    next = steps.next();
  }
  return next.value;
}

/** Items a loop handles between two pause points (a clock read per this many, not per item). */
export const STEP_EVERY = 1024;
