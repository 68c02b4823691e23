import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import {
  CALLER_SPECIFIC_CACHE_CONTROL,
  callerSpecificHeaders,
  commonErrorResponses,
  okResponse,
} from '../http/schemas.ts';
import { type IpAnswer, type IpAnswers, type IpInfo, serializeIpInfo, snapshotOf } from './answers/ip-answers.ts';
import { IpInfoBody } from './answers/json-schema.ts';
import { attributionResponseHeader, creditData } from './attribution.ts';
import type { IpData } from './data/ip-data.ts';
import type { IpDataStore } from './data/ip-data-store.ts';
import { fieldPaths, parseFields, pickFields } from './fields.ts';
import { IP_PARAMETER_HINT, parseIpParameter } from './ip-param.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

const DATA_DESCRIPTION = `Fields whose data is missing are omitted, never guessed.

Data: a City database (MaxMind GeoLite2 City shipped with the service, DB-IP City Lite or GeoLite2 once the
service's refresh (DATA_REFRESH_HOURS, 24 by default) or \`npm run data:update\` downloaded it, or the operator's own GEOIP_CITY_DB), ASN data (ip-location-db's RouteViews + RIR +
DB-IP ASN Lite compilation, DB-IP ASN Lite or GeoLite2 ASN, or GEOIP_ASN_DB), and security feeds (the Tor
Project's exit list, X4BNet's VPN and datacenter lists, FireHOL's open-proxy list, an optional GeoIP2
Anonymous IP database). New data
is swapped in while the service runs; one answer always comes from one consistent set.

Attribution: the \`X-Data-Attribution\` header names the sources whose licences ask for credit, e.g.
"GeoLite2 data created by MaxMind, available from https://www.maxmind.com" and "IP Geolocation by DB-IP
(https://db-ip.com)". A page that shows these answers should show that credit (DB-IP asks for a link).`;

const DESCRIPTION = `Geolocation, network, kind, class, reverse name and security indicators of the caller's own IP
address (see "The caller's IP" for proxies). ${DATA_DESCRIPTION}`;

const IP_DESCRIPTION = `The same answer as /api/v1/json, about any IPv4 or IPv6 address: what /api/v1/json answers a client
connecting from that address (hostname through the resolver, special-purpose addresses answered with \`special\`
and \`security.bogon\`). An IPv4-mapped IPv6 address (\`::ffff:8.8.8.8\`) is answered about its IPv4 address,
with \`mappedFrom\` saying so. Refused with a 400 naming the parameter: anything that is not an address,
leading zeros (\`010.1.1.1\`), an IPv6 zone index (\`fe80::1%25eth0\`), more than 45 characters. One request
against the limits. ${DATA_DESCRIPTION}`;

export const FIELDS_DESCRIPTION =
  'Keep only these parts of the answer: a comma-separated list of top-level names or dotted paths, e.g. `ip,location.countryCode,network.asn`. A field that is unknown for the address stays absent (even `ip` and `security` are left out unless named). A name no answer can have is a 400 listing the valid names.';

/** Every name `fields` accepts on the /json routes. */
export const IP_FIELD_NAMES: readonly string[] = fieldPaths(IpInfoBody);
const IP_FIELDS = new Set(IP_FIELD_NAMES);

const FieldsQuery = Type.Object(
  { fields: Type.Optional(Type.String({ maxLength: 2000, description: FIELDS_DESCRIPTION })) },
  { additionalProperties: false },
);

/** The parsed `fields` parameter, or undefined for the whole answer; a 400 for names no answer has. */
export function selectedFields(text: string | undefined, valid: ReadonlySet<string> = IP_FIELDS) {
  if (text === undefined) return undefined;
  const selection = parseFields(text, valid);
  if (!selection.ok) throw apiErrors.unknownFields(selection.unknown, [...valid]);
  return selection.paths;
}

/** Sends the /json answer about `ip`: the cached JSON, or with `mappedFrom` and only `fields`. */
export type IpAnswerSender = (
  ip: string,
  mappedFrom: string | undefined,
  fields: readonly string[][] | undefined,
  reply: FastifyReply,
) => FastifyReply | Promise<FastifyReply>;

export function registerJsonRoute(app: FastifyInstance, store: IpDataStore, answers: IpAnswers): IpAnswerSender {
  const ok = okResponse(IpInfoBody, 'What the service knows about the address.');
  const response = {
    200: {
      ...ok,
      headers: {
        ...ok.headers,
        ...callerSpecificHeaders,
        ...attributionResponseHeader,
      },
    },
    ...commonErrorResponses,
  };
  app.get(
    '/api/v1/json',
    {
      schema: {
        summary: 'IP information about the caller: location, network, type, class, hostname, security',
        description: DESCRIPTION,
        tags: ['ip'],
        querystring: FieldsQuery,
        response,
      },
    },
    (request, reply) => {
      const fields = selectedFields((request.query as { fields?: string }).fields);
      return answerAbout(request.clientIp, undefined, fields, reply);
    },
  );

  app.get(
    '/api/v1/json/:ip',
    {
      schema: {
        summary: 'IP information about any address: location, network, type, class, hostname, security',
        description: IP_DESCRIPTION,
        tags: ['ip'],
        params: Type.Object({ ip: Type.String({ description: `The address: ${IP_PARAMETER_HINT}.` }) }),
        querystring: FieldsQuery,
        response,
      },
      config: { parameterHints: { ip: IP_PARAMETER_HINT } },
    },
    (request, reply) => {
      const asked = parseIpParameter((request.params as { ip: string }).ip);
      if (!asked.ok) throw apiErrors.invalidPathParameter('ip', asked.reason);
      const fields = selectedFields((request.query as { fields?: string }).fields);
      return answerAbout(asked.ip, asked.mappedFrom, fields, reply);
    },
  );

  return answerAbout;

  /** A repeat is answered synchronously: no promise on the hot path. */
  function answerAbout(
    ip: string,
    mappedFrom: string | undefined,
    fields: readonly string[][] | undefined,
    reply: FastifyReply,
  ): FastifyReply | Promise<FastifyReply> {
    // One snapshot for the whole request: every lookup below reads the same data.
    const data = snapshotOf(store);
    if (data instanceof Promise) return data.then((loaded) => answerFrom(ip, loaded, mappedFrom, fields, reply));
    return answerFrom(ip, data, mappedFrom, fields, reply);
  }

  function answerFrom(
    ip: string,
    data: IpData | undefined,
    mappedFrom: string | undefined,
    fields: readonly string[][] | undefined,
    reply: FastifyReply,
  ): FastifyReply | Promise<FastifyReply> {
    creditData(reply, data);
    reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
    reply.type(JSON_TYPE);
    const made = answers.complete(ip, data);
    const send = (done: IpAnswer) => reply.send(bodyOf(done, mappedFrom, fields));
    return made instanceof Promise ? made.then(send) : send(made);
  }
}

/** The cached JSON as it is, or the answer with `mappedFrom` and only the selected fields. */
function bodyOf(made: IpAnswer, mappedFrom: string | undefined, fields: readonly string[][] | undefined): string {
  if (mappedFrom === undefined && fields === undefined) return made.json;
  const answer: IpInfo = mappedFrom === undefined ? made.answer : { ...made.answer, mappedFrom };
  // A selection may leave out what the schema requires, so it is not put through the schema's serializer.
  return fields === undefined ? serializeIpInfo(answer) : JSON.stringify(pickFields(answer, fields));
}
