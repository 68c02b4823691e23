/**
 * A value now, or a promise of it. The rate-limit path returns plain values when its backend is in
 * this process (memory store, no API key), because an `await` on every request costs a measurable
 * share of a small route's throughput; a Redis store or a key lookup returns a promise instead.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}

/**
 * Applies `next` to the value at once when it is plain, or when the promise settles. `next` runs
 * synchronously in the plain case, so the caller must not rely on it running later. (Not named
 * `then`: a module exporting `then` makes its namespace a thenable, which `await import()` calls.)
 */
export function thenMaybe<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromise(value) ? value.then(next) : next(value);
}
