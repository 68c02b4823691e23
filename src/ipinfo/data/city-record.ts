import { createGenerationalMap } from '../../cache/generational-map.ts';
import { type MmdbReader, MmdbType } from './mmdb-reader.ts';

/** English names and codes; a field is omitted (not set to undefined) when the database lacks it. */
export interface Location {
  country?: string;
  countryCode?: string;
  city?: string;
  continent?: string;
  continentCode?: string;
  latitude?: number;
  longitude?: number;
  /** Kilometres around latitude/longitude the address is likely within (MaxMind's accuracy_radius). */
  accuracyRadius?: number;
  timezone?: string;
  postalCode?: string;
  /** The largest subdivision (state, region, country of the UK). */
  region?: string;
  regionCode?: string;
}

/** What a GeoIP2 Enterprise (or Insights-format) database says about the connection; absent elsewhere. */
export interface LocationTraits {
  /** MaxMind `traits.user_type`, e.g. 'residential', 'cellular', 'hosting'. */
  userType?: string;
  /** MaxMind `traits.connection_type`, e.g. 'Cable/DSL'. */
  connectionType?: string;
}

export interface CityAnswer {
  location: Location;
  traits: LocationTraits;
}

/**
 * The fields of a GeoIP2/GeoLite2 City, Country or Enterprise record that `lookupCity` answers,
 * read from the record's bytes; every other field is skipped by its size (names in the seven other
 * languages, geoname ids, represented_country...). Equal to what geo.ts made of mmdb-lib's whole
 * record (test/ipinfo/data/mmdb-reader.test.ts compares the two on every test database and on
 * 120,000 addresses of the embedded GeoLite2 City).
 */
export function cityRecords(db: MmdbReader): (offset: number) => CityAnswer {
  /**
   * A place's English name and code, by the offset of the place's map. A database writes a country,
   * a continent, a city once and points at it from every record, so most places are read once:
   * of a batch of new addresses, many share a country and a region, and some a city.
   */
  const places = createGenerationalMap<number, Place>(PLACES_KEPT);
  /** Coordinates, radius and time zone, by the offset of the location's map: shared by a city's records. */
  const locations = createGenerationalMap<number, Found>(PLACES_KEPT);

  /** The place (a map) at `offset`; returns the offset after it. */
  function place(offset: number, codeKey: string | undefined, into: (place: Place) => void): number {
    db.head(offset);
    const after = db.end;
    if (db.type !== MmdbType.Map) return after === -1 ? db.skip(offset) : after;
    const start = db.at;
    const known = places.get(start);
    if (known !== undefined && after !== -1) {
      into(known);
      return after;
    }
    const found: Place = {};
    let cursor = start;
    for (let i = 0, n = db.size; i < n; i++) {
      const key = db.key(cursor);
      cursor = db.next;
      if (key === 'names') cursor = english(cursor, found);
      else if (key === codeKey) {
        found.code = db.decode(cursor) as string;
        cursor = db.next;
      } else cursor = db.skip(cursor);
      // Behind a pointer the place's end is known: the rest of its map need not be walked.
      if (after !== -1 && found.name !== undefined && (codeKey === undefined || found.code !== undefined)) break;
    }
    if (after !== -1) places.set(start, found);
    into(found);
    return after === -1 ? cursor : after;
  }

  function english(offset: number, found: Place): number {
    return eachEntry(
      db,
      offset,
      (key, at) => {
        if (key !== 'en') return db.skip(at);
        found.name = db.decode(at) as string;
        return db.next;
      },
      () => found.name !== undefined,
    );
  }

  return (offset) => {
    const found: Found = {};
    eachEntry(db, offset, (key, at) => {
      switch (key) {
        case 'country':
          return place(at, 'iso_code', (p) => {
            found.country = p.name;
            found.countryCode = p.code;
          });
        case 'city':
          return place(at, undefined, (p) => {
            found.city = p.name;
          });
        case 'continent':
          return place(at, 'code', (p) => {
            found.continent = p.name;
            found.continentCode = p.code;
          });
        case 'subdivisions':
          // The largest subdivision: the first of the list.
          return eachItem(db, at, (index, item) =>
            index > 0
              ? db.skip(item)
              : place(item, 'iso_code', (p) => {
                  found.region = p.name;
                  found.regionCode = p.code;
                }),
          );
        case 'location': {
          db.head(at);
          const end = db.end;
          if (end === -1) return scalars(db, at, found, LOCATION_FIELDS);
          const shared = db.at;
          let read = locations.get(shared);
          if (read === undefined) {
            read = {};
            scalars(db, at, read, LOCATION_FIELDS);
            locations.set(shared, read);
          }
          Object.assign(found, read);
          return end;
        }
        case 'postal':
          return scalars(db, at, found, POSTAL_FIELDS);
        case 'traits':
          return scalars(db, at, found, TRAIT_FIELDS);
        default:
          return db.skip(at);
      }
    });
    return answerOf(found);
  };
}

const PLACES_KEPT = 20_000;

type Place = { name?: string; code?: string };
type Found = { [K in keyof Location]?: Location[K] | undefined } & { userType?: string; connectionType?: string };
type FoundKey = keyof Found;

const LOCATION_FIELDS: Readonly<Record<string, FoundKey>> = {
  latitude: 'latitude',
  longitude: 'longitude',
  accuracy_radius: 'accuracyRadius',
  time_zone: 'timezone',
};
const POSTAL_FIELDS: Readonly<Record<string, FoundKey>> = { code: 'postalCode' };
const TRAIT_FIELDS: Readonly<Record<string, FoundKey>> = { user_type: 'userType', connection_type: 'connectionType' };

function answerOf(found: Found): CityAnswer {
  const location: Location = {};
  // The order geo.ts always gave (some faces print the object as it is).
  if (found.country !== undefined) location.country = found.country;
  if (found.countryCode !== undefined) location.countryCode = found.countryCode;
  if (found.city !== undefined) location.city = found.city;
  if (found.continent !== undefined) location.continent = found.continent;
  if (found.continentCode !== undefined) location.continentCode = found.continentCode;
  if (found.latitude !== undefined) location.latitude = found.latitude;
  if (found.longitude !== undefined) location.longitude = found.longitude;
  if (found.accuracyRadius !== undefined) location.accuracyRadius = found.accuracyRadius;
  if (found.timezone !== undefined) location.timezone = found.timezone;
  if (found.postalCode !== undefined) location.postalCode = found.postalCode;
  if (found.region !== undefined) location.region = found.region;
  if (found.regionCode !== undefined) location.regionCode = found.regionCode;
  const traits: LocationTraits = {};
  if (found.userType) traits.userType = found.userType;
  if (found.connectionType) traits.connectionType = found.connectionType;
  return { location, traits };
}

/** Scalars of a map by key (`Object.hasOwn`: a key such as `constructor` is skipped). */
function scalars(db: MmdbReader, offset: number, found: Found, wanted: Readonly<Record<string, FoundKey>>): number {
  return eachEntry(db, offset, (key, at) => {
    const into = Object.hasOwn(wanted, key) ? wanted[key] : undefined;
    if (into === undefined) return db.skip(at);
    (found as Record<string, unknown>)[into] = db.decode(at);
    return db.next;
  });
}

/**
 * Calls `visit` with every key of the map at `offset` (until `enough`) and where its value starts;
 * `visit` returns where the value ends. Returns where the map ends (after the pointer, if it was
 * reached through one). Anything but a map is skipped.
 */
function eachEntry(
  db: MmdbReader,
  offset: number,
  visit: (key: string, at: number) => number,
  enough?: () => boolean,
): number {
  db.head(offset);
  const after = db.end;
  if (db.type !== MmdbType.Map) return after === -1 ? db.skip(offset) : after;
  let cursor = db.at;
  for (let i = 0, n = db.size; i < n; i++) {
    const key = db.key(cursor);
    cursor = visit(key, db.next);
    // Behind a pointer the map's end is known, so the rest of it can be left unread.
    if (after !== -1 && enough?.() === true) return after;
  }
  return after === -1 ? cursor : after;
}

function eachItem(db: MmdbReader, offset: number, visit: (index: number, at: number) => number): number {
  db.head(offset);
  const after = db.end;
  if (db.type !== MmdbType.Array) return after === -1 ? db.skip(offset) : after;
  let cursor = db.at;
  for (let i = 0, n = db.size; i < n; i++) cursor = visit(i, cursor);
  return after === -1 ? cursor : after;
}
