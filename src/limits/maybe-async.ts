/**
 * A value now, or a promise of it. The rate-limit path returns plain values when its backend is in
 * this process (memory store, no API key), because an `await` on every request costs a measurable
 * share of a small route's throughput; a Redis store or a key lookup returns a promise instead.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}
