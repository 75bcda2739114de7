/** Small helpers so every wait honours an AbortSignal and never holds the process open. */

/** The signal's reason, or a generic AbortError when the signal carries none. */
export function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** Waits `ms` milliseconds (timer unref'ed); rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortReason(signal!));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    timer.unref();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits `ms` milliseconds like `sleep`, but never rejects: resolves false when `signal` aborted first. */
export async function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as the signal aborts, whichever
 * comes first. The underlying work is not cancelled (the caller passes the signal down for that); a
 * value it still produces after the abort goes to `onLateValue` (e.g. to close a reader that opened too late).
 */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal, onLateValue?: (value: T) => void): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.then(
      (value) => onLateValue?.(value),
      () => {},
    );
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (aborted) onLateValue?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** Resolves when `promise` settles or after `ms`, whichever is first; never rejects. True if it settled. */
export async function settleWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
