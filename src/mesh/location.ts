/** Where a node is: what NODE_LOCATION says, else what its own IP data says of its public address. */
export interface NodeLocation {
  /** ISO 3166-1 alpha-2, upper case. */
  country?: string;
  city?: string;
  /** AF AN AS EU NA OC SA. */
  continent?: string;
  latitude?: number;
  longitude?: number;
}

// ISO 3166-1 alpha-2 codes by continent (the City database's continent codes), so a NODE_LOCATION
// that names a country also answers `continent` selectors.
const CONTINENTS: Record<string, string> = {
  AF: 'AO BF BI BJ BW CD CF CG CI CM CV DJ DZ EG EH ER ET GA GH GM GN GQ GW KE KM LR LS LY MA MG ML MR MU MW MZ NA NE NG RE RW SC SD SH SL SN SO SS ST SZ TD TG TN TZ UG YT ZA ZM ZW',
  AN: 'AQ BV GS HM TF',
  AS: 'AE AF AM AZ BD BH BN BT CC CN CX CY GE HK ID IL IN IO IQ IR JO JP KG KH KP KR KW KZ LA LB LK MM MN MO MV MY NP OM PH PK PS QA SA SG SY TH TJ TL TM TR TW UZ VN YE',
  EU: 'AD AL AT AX BA BE BG BY CH CZ DE DK EE ES FI FO FR GB GG GI GR HR HU IE IM IS IT JE LI LT LU LV MC MD ME MK MT NL NO PL PT RO RS RU SE SI SJ SK SM UA VA XK',
  NA: 'AG AI AW BB BL BM BQ BS BZ CA CR CU CW DM DO GD GL GP GT HN HT JM KN KY LC MF MQ MS MX NI PA PM PR SV SX TC TT US VC VG VI',
  OC: 'AS AU CK FJ FM GU KI MH MP NC NF NR NU NZ PF PG PN PW SB TK TO TV UM VU WF WS',
  SA: 'AR BO BR CL CO EC FK GF GY PE PY SR UY VE',
};
const CONTINENT_OF = new Map(
  Object.entries(CONTINENTS).flatMap(([continent, codes]) => codes.split(' ').map((code) => [code, continent])),
);
export const CONTINENT_CODES = Object.keys(CONTINENTS);

export function continentOf(country: string): string | undefined {
  return CONTINENT_OF.get(country.toUpperCase());
}

const KEYS = ['country', 'city', 'continent', 'latitude', 'longitude'] as const;

/**
 * `country=DE,city=Frankfurt,latitude=50.11,longitude=8.68`: any of the keys, in any order; the
 * continent follows from the country unless given. Throws a message naming what is wrong.
 */
export function parseNodeLocation(raw: string): NodeLocation | null {
  if (raw.trim() === '') return null;
  const location: NodeLocation = {};
  for (const part of raw.split(',')) {
    const [key = '', ...rest] = part.split('=');
    const name = key.trim().toLowerCase();
    const value = rest.join('=').trim();
    if (!(KEYS as readonly string[]).includes(name)) {
      throw new Error(`"${part.trim()}" is not one of ${KEYS.map((k) => `${k}=`).join(', ')}`);
    }
    if (value === '') throw new Error(`${name} has no value`);
    if (name === 'country') {
      const code = value.toUpperCase();
      if (!CONTINENT_OF.has(code)) throw new Error(`country must be an ISO 3166 two-letter code, got "${value}"`);
      location.country = code;
    } else if (name === 'continent') {
      const code = value.toUpperCase();
      if (!CONTINENT_CODES.includes(code)) throw new Error(`continent must be one of ${CONTINENT_CODES.join(' ')}`);
      location.continent = code;
    } else if (name === 'city') {
      location.city = value;
    } else {
      const number = Number(value);
      const limit = name === 'latitude' ? 90 : 180;
      if (!/^-?\d+(\.\d+)?$/.test(value) || Math.abs(number) > limit) {
        throw new Error(`${name} must be a number from -${limit} to ${limit}, got "${value}"`);
      }
      location[name as 'latitude' | 'longitude'] = number;
    }
  }
  if (location.country && !location.continent) location.continent = continentOf(location.country);
  return location;
}
