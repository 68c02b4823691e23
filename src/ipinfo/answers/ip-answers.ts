import { type SharedWhileInFlight, sharedWhileInFlight } from '../../cache/in-flight.ts';
import { isStaleVrpSet } from '../data/data-sources.ts';
import type { IpData } from '../data/ip-data.ts';
import type { IpDataStore } from '../data/ip-data-store.ts';
import { createAnswerCache } from './answer-cache.ts';
import { describeIp, type IpDescription } from './describe-ip.ts';
import type { HostnameLookup } from './hostname.ts';
import { ipInfoJson } from './ip-info-json.ts';

/** The answer of /api/v1/json and /api/v1/json/{ip}: the pure description and the reverse name. */
export interface IpInfo extends IpDescription {
  hostname?: string;
  mappedFrom?: string;
}

/** A finished answer: the object (for `fields` and the text paths) and its JSON. */
export interface IpAnswer {
  readonly answer: IpInfo;
  /**
   * The JSON's UTF-8 bytes, made once per answer: sent as a string, every request measured its
   * UTF-8 length twice and encoded it again (3.4k of a /api/v1/json request's 118k instructions).
   * Escaped already (ipInfoJson), as the onSend step that passes buffers through requires.
   */
  readonly json: Buffer;
}

/** How long an answer is reused for the same address (and so how stale a reverse name may be). */
const ANSWER_TTL_MS = 60_000;

export const serializeIpInfo = ipInfoJson;

/** The data snapshot a request uses: the current one, or the first load (undefined if it failed). */
export function snapshotOf(store: IpDataStore): IpData | undefined | Promise<IpData | undefined> {
  const data = store.current;
  if (data !== undefined) return data;
  return store.loaded().then(
    (loaded) => loaded,
    () => undefined,
  );
}

/** How old the loaded VRP set is (no answer carries it): since the validator made it, else since its install. */
export async function vrpSetAge(store: IpDataStore, now: number) {
  const source = (await snapshotOf(store))?.sources.find((candidate) => candidate.kind === 'rpki');
  if (source?.kind !== 'rpki') return undefined;
  const stale = isStaleVrpSet(source, now);
  return { at: source.updatedAt, ageMs: now - source.updatedAt, generated: source.generated, stale };
}

/** The description with its reverse name, when the address is public and one arrives in time. */
export function withHostname(description: IpDescription, lookupHostname: HostnameLookup): IpInfo | Promise<IpInfo> {
  if (description.security.bogon) return description;
  return lookupHostname(description.ip).then((hostname) =>
    hostname === undefined ? description : { ...description, hostname },
  );
}

export interface IpAnswers {
  /** The complete answer about `ip` (a normalised address), reused for a minute per data snapshot. */
  complete(ip: string, data: IpData | undefined): IpAnswer | Promise<IpAnswer>;
}

/**
 * Complete answers, shared by /api/v1/json (the caller), /api/v1/json/{ip} and `GET /json`: one
 * cache, so asking about an address is the same work whichever way it is asked.
 */
export function createIpAnswers(
  lookupHostname: HostnameLookup,
  /** Told of every cache lookup, hit or miss (the metrics). */
  onCacheLookup: (hit: boolean) => void = () => {},
): IpAnswers {
  const answers = createAnswerCache<IpData, IpAnswer>({ maxEntries: 20_000, ttlMs: ANSWER_TTL_MS });
  // Answers being made, per data snapshot and address: requests for an address that arrive while
  // its answer is being made (its reverse lookup in flight) wait for that answer instead of making
  // it again. Without this, 50 clients behind one address each did the lookups and serialisation
  // the first time, and again every time the cached answer expired.
  const makingBySnapshot = new WeakMap<IpData, SharedWhileInFlight<string, IpAnswer>>();
  const makingWithoutData = sharedWhileInFlight<string, IpAnswer>();
  function makingFor(data: IpData | undefined): SharedWhileInFlight<string, IpAnswer> {
    if (data === undefined) return makingWithoutData;
    let making = makingBySnapshot.get(data);
    if (making === undefined) {
      making = sharedWhileInFlight();
      makingBySnapshot.set(data, making);
    }
    return making;
  }

  function remember(ip: string, data: IpData | undefined, answer: IpInfo): IpAnswer {
    const made = { answer, json: Buffer.from(serializeIpInfo(answer)) };
    answers.set(ip, data, made);
    return made;
  }

  return {
    complete(ip, data) {
      const cached = answers.get(ip, data);
      onCacheLookup(cached !== undefined);
      if (cached !== undefined) return cached;
      const making = makingFor(data);
      const joined = making.get(ip);
      if (joined !== undefined) return joined;
      const answer = withHostname(describeIp(ip, data), lookupHostname);
      if (!(answer instanceof Promise)) return remember(ip, data, answer);
      return making(ip, () => answer.then((complete) => remember(ip, data, complete)));
    },
  };
}
