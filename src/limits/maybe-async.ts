/** A value now, or a promise of it: the rate-limit path's (why and what it saves: rate-limit-hook.ts). */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return value instanceof Promise;
}
