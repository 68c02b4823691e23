import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ApiError, apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse } from '../http/schemas.ts';
import { type AnswerCache, createAnswerCache } from './answers/answer-cache.ts';
import { ASN_PARAMETER_HINT, AsnBody, parseAsn, serializeAsnAnswer } from './answers/asn-answer.ts';
import { describeIp } from './answers/describe-ip.ts';
import type { HostnameLookup } from './answers/hostname.ts';
import { type IpInfo, serializeIpInfo, snapshotOf, withHostname } from './answers/ip-answers.ts';
import { IpInfoBody } from './answers/json-schema.ts';
import { asnAnswerOrError } from './asn-route.ts';
import { creditData, withAttribution } from './attribution.ts';
import type { IpData } from './data/ip-data.ts';
import type { IpDataStore } from './data/ip-data-store.ts';
import { fieldPaths, pickFields } from './fields.ts';
import { parseIpParameter } from './ip-param.ts';
import { FIELDS_DESCRIPTION, selectedFields } from './json-route.ts';

export const BATCH_PATH = '/api/v1/batch';
export const MAX_BATCH_ITEMS = 1_000;
export const BATCH_BODY_LIMIT_BYTES = 1_048_576;

/** Names `fields` accepts on a batch: those of either answer. */
const BATCH_FIELDS = new Set(fieldPaths(IpInfoBody, AsnBody));
const ADDRESS_FIELDS = new Set(fieldPaths(IpInfoBody));
const AS_FIELDS = new Set(fieldPaths(AsnBody));

const DESCRIPTION = `Many addresses and ASNs in one request. The body is a JSON array of 1 to ${MAX_BATCH_ITEMS.toLocaleString('en')}
strings, each an IPv4 or IPv6 address or an ASN written \`AS123\`. The answer is one object whose keys are the
items as sent and whose values are what \`/api/v1/json/{ip}\` or \`/api/v1/asn/{asn}\` would answer, or
\`{"error": "..."}\` for an item that is invalid or unknown: one bad item never fails the batch. An item sent
twice is answered once.

\`fields\` applies to every item with the names of its own answer: \`fields=ip,location.countryCode,asn,name\`
keeps \`ip\` and \`location.countryCode\` of each address and \`asn\` and \`name\` of each AS (\`type\` and
\`security\` are in both answers). A \`fields\` that names nothing an address's answer has while the batch holds an
address, or nothing an AS's answer has while it holds an AS, is a 400 saying so, rather than \`{}\` for those items.

\`hostname\` is left out unless \`fields\` names it; then reverse lookups run at most 32 at a time across all
batches (a lookup already running for /api/v1/json is shared), each under HOSTNAME_TIMEOUT_MS.

Counting: each distinct item counts as one request against the caller's hourly and daily limits (the POST
itself counts as its items, not one more). A batch larger than what remains is refused whole with the 429
body and counts nothing; the X-RateLimit-* headers show the state after the batch.

Refused whole: a body that is not JSON, not an array, empty, over ${MAX_BATCH_ITEMS.toLocaleString('en')} items, or has an item
that is not a string (400 saying which); a body over 1 MB (413); a Content-Type other than application/json (415).`;

/**
 * The items of a batch body, or the catalogue's 400 saying which rule it breaks. Pure, so the rate
 * limiter can read a body the same way the route does.
 */
export function parseBatchBody(body: string | undefined): string[] {
  if (body === undefined || body.trim() === '') {
    throw apiErrors.invalidBatch(`the body is empty; send a JSON array of 1 to ${MAX_BATCH_ITEMS} strings`);
  }
  let items: unknown;
  try {
    items = JSON.parse(body);
  } catch (error) {
    throw apiErrors.invalidBatch(`the body is not valid JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(items)) {
    const kind = items === null ? 'null' : typeof items === 'object' ? 'an object' : `a ${typeof items}`;
    throw apiErrors.invalidBatch(`the body must be a JSON array of strings, not ${kind}`);
  }
  if (items.length === 0) throw apiErrors.invalidBatch('the array is empty; send 1 or more items');
  if (items.length > MAX_BATCH_ITEMS) {
    throw apiErrors.invalidBatch(`${items.length} items; at most ${MAX_BATCH_ITEMS} in one batch`);
  }
  const notString = items.findIndex((item) => typeof item !== 'string');
  if (notString !== -1) {
    const item = items[notString];
    const kind =
      item === null
        ? 'null'
        : Array.isArray(item)
          ? 'an array'
          : typeof item === 'object'
            ? 'an object'
            : `a ${typeof item}`;
    throw apiErrors.invalidBatch(`item ${notString} (counting from 0) is ${kind}, not a string`);
  }
  return items as string[];
}

/** What a valid batch counts as against the limits: each distinct item once. */
export function batchCost(items: readonly string[]): number {
  return new Set(items).size;
}

type ItemAnswer = { json: string } | Promise<{ json: string }>;

/**
 * Descriptions without a reverse name, by address, for one data snapshot: an item depends only on
 * the address and the data, and batches repeat addresses (a client re-checking its list). Without
 * it a batch of 1,000 addresses new to the City database's record cache took 28-32 ms of server
 * CPU, nearly all of it decoding City records (bench `batch`).
 */
type Descriptions = AnswerCache<IpData, { answer: IpInfo; json: string }>;
const DESCRIPTIONS_KEPT = 50_000;
const DESCRIPTION_TTL_MS = 10 * 60_000;

function describeCached(ip: string, data: IpData | undefined, descriptions: Descriptions) {
  let made = descriptions.get(ip, data);
  if (made === undefined) {
    const answer = describeIp(ip, data);
    made = { answer, json: serializeIpInfo(answer) };
    descriptions.set(ip, data, made);
  }
  return made;
}

/**
 * A \`fields\` naming nothing of one kind's answer would answer each item of that kind \`{}\`
 * (\`fields=ip,location.countryCode\` with \`AS15169\` in the batch): the caller is told instead.
 */
function refuseFieldsThatEmptyAKind(fields: readonly string[][], items: readonly string[]): void {
  const named = fields.map((path) => path.join('.'));
  const kinds = [
    { what: 'an AS', names: AS_FIELDS, item: items.find((item) => /^AS/i.test(item) && parseAsn(item) !== null) },
    {
      what: 'an address',
      names: ADDRESS_FIELDS,
      item: items.find((item) => !/^AS/i.test(item) && parseIpParameter(item).ok),
    },
  ];
  for (const { what, names, item } of kinds) {
    if (item === undefined || named.some((name) => names.has(name))) continue;
    throw apiErrors.invalidParameter(
      'fields',
      `it names no field of ${what}'s answer, so ${item} would be answered {}; add one or more of ${[...names].join(', ')}, or send those items in another batch`,
    );
  }
}

/** One item's answer as JSON: an IP answer, an ASN answer, or `{"error"}`. */
function answerItem(
  item: string,
  data: IpData | undefined,
  fields: readonly string[][] | undefined,
  lookupHostname: HostnameLookup | undefined,
  descriptions: Descriptions,
): ItemAnswer {
  if (/^AS/i.test(item)) {
    if (parseAsn(item) === null) return { json: JSON.stringify({ error: `Not an ASN: ${ASN_PARAMETER_HINT}.` }) };
    const answer = asnAnswerOrError(item, data);
    if (answer instanceof ApiError) return { json: JSON.stringify({ error: answer.message }) };
    return { json: fields === undefined ? serializeAsnAnswer(answer) : JSON.stringify(pickFields(answer, fields)) };
  }
  const asked = parseIpParameter(item);
  if (!asked.ok) {
    return { json: JSON.stringify({ error: `Not an IP address or an ASN (AS123): ${asked.reason}.` }) };
  }
  const made = describeCached(asked.ip, data, descriptions);
  if (asked.mappedFrom === undefined && fields === undefined && lookupHostname === undefined) return made;
  const description: IpInfo =
    asked.mappedFrom === undefined ? made.answer : { ...made.answer, mappedFrom: asked.mappedFrom };
  const finish = (answer: IpInfo) => ({
    json: fields === undefined ? serializeIpInfo(answer) : JSON.stringify(pickFields(answer, fields)),
  });
  if (lookupHostname === undefined) return finish(description);
  const complete = withHostname(description, lookupHostname);
  return complete instanceof Promise ? complete.then(finish) : finish(complete);
}

/** The item as a JSON string; an address or an ASN needs no escaping, so most skip JSON.stringify. */
function jsonKey(item: string): string {
  return /^[0-9A-Za-z.:]*$/.test(item) ? `"${item}"` : JSON.stringify(item);
}

/** A request's batch items, parsed once: the rate limiter counts them, then the handler answers them. */
const parsedBodies = new WeakMap<FastifyRequest, string[]>();
function parsedBody(request: FastifyRequest): string[] {
  let items = parsedBodies.get(request);
  if (items === undefined) {
    items = parseBatchBody(request.body as string | undefined);
    parsedBodies.set(request, items);
  }
  return items;
}

export function registerBatchRoute(app: FastifyInstance, store: IpDataStore, lookupHostname: HostnameLookup): void {
  const ItemError = Type.Object(
    { error: Type.String({ description: 'Why this item has no answer.' }) },
    { additionalProperties: false },
  );
  const descriptions: Descriptions = createAnswerCache({ maxEntries: DESCRIPTIONS_KEPT, ttlMs: DESCRIPTION_TTL_MS });
  // Its own scope: the body is read as text here, and only this route refuses other types.
  app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string', bodyLimit: BATCH_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      BATCH_PATH,
      {
        schema: {
          summary: `Up to ${MAX_BATCH_ITEMS.toLocaleString('en')} addresses and ASNs in one request, each counted as one request`,
          description: DESCRIPTION,
          tags: ['ip'],
          querystring: Type.Object(
            { fields: Type.Optional(Type.String({ maxLength: 2000, description: FIELDS_DESCRIPTION })) },
            { additionalProperties: false },
          ),
          body: Type.Array(Type.String(), {
            minItems: 1,
            maxItems: MAX_BATCH_ITEMS,
            description: 'IPv4 or IPv6 addresses and ASNs (`AS15169`).',
            examples: [['8.8.8.8', '2001:4860:4860::8888', 'AS15169']],
          }),
          response: {
            200: withAttribution(
              okResponse(
                Type.Record(Type.String(), Type.Union([IpInfoBody, AsnBody, ItemError])),
                'The answer per distinct item, keyed by the item as sent.',
              ),
            ),
            ...commonErrorResponses,
            413: { ...commonErrorResponses[400], description: 'The body is over 1 MB.' },
            415: { ...commonErrorResponses[400], description: 'The Content-Type is not application/json.' },
          },
        },
        // The body is checked by parseBatchBody (its messages say which rule broke), not by the schema above,
        // which is there for the OpenAPI document.
        validatorCompiler: () => () => true,
        // Counted as its distinct items, all or nothing, once the body is read (limits/rate-limit-hook.ts).
        config: {
          rateLimitCost: (request) => batchCost(parsedBody(request)),
          rateLimitCostText: (request, cost) => {
            const sent = parsedBody(request).length;
            return sent === cost
              ? `this batch has ${cost} items`
              : `this batch has ${cost} distinct items (of ${sent} sent)`;
          },
        },
        onRequest: (request, _reply, done) => {
          const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
          done(type === 'application/json' ? undefined : apiErrors.unsupportedMediaType());
        },
      },
      async (request, reply) => {
        const fields = selectedFields((request.query as { fields?: string }).fields, BATCH_FIELDS);
        const items = [...new Set(parsedBody(request))];
        if (fields !== undefined) refuseFieldsThatEmptyAKind(fields, items);
        const data = await snapshotOf(store);
        const wantsHostname = fields?.some((path) => path[0] === 'hostname') === true;
        const lookup = wantsHostname ? lookupHostname : undefined;
        const answers = items.map((item) => answerItem(item, data, fields, lookup, descriptions));
        const settled = answers.some((answer) => answer instanceof Promise) ? await Promise.all(answers) : answers;
        const parts = settled.map((answer, i) => `${jsonKey(items[i] as string)}:${(answer as { json: string }).json}`);
        creditData(reply, data);
        return reply.type('application/json; charset=utf-8').send(`{${parts.join(',')}}`);
      },
    );
    // GET on the path is a 405 naming POST, not a 404.
    scope.get(BATCH_PATH, { schema: { hide: true } }, async (request) => {
      throw apiErrors.methodNotAllowed(request.method, BATCH_PATH, ['POST', 'OPTIONS']);
    });
  });
}
