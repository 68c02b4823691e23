import type { FastifyRequest } from 'fastify';
import { escapeControlCharactersInJson } from '../http/control-characters.ts';
import { ApiError, apiErrors } from '../http/errors.ts';
import { ASN_PARAMETER_HINT, AsnBody, parseAsn, serializeAsnAnswer } from './answers/asn-answer.ts';
import { describeIp } from './answers/describe-ip.ts';
import type { HostnameLookup } from './answers/hostname.ts';
import { type IpInfo, serializeIpInfo, withHostname } from './answers/ip-answers.ts';
import { IpInfoBody } from './answers/json-schema.ts';
import { asnAnswerOrError } from './asn-lookup.ts';
import type { IpData } from './data/ip-data.ts';
import { fieldPaths, pickFields } from './fields.ts';
import { parseIpParameter } from './ip-param.ts';
import { MAX_BATCH_ITEMS } from './schema.ts';

/** Names `fields` accepts on a batch: those of either answer, but `network.abuse` (an RDAP lookup per address). */
export const BATCH_FIELDS = new Set(fieldPaths(IpInfoBody, AsnBody).filter((name) => !isAbuseField(name)));
const ADDRESS_FIELDS = new Set(fieldPaths(IpInfoBody).filter((name) => !isAbuseField(name)));
const AS_FIELDS = new Set(fieldPaths(AsnBody));

function isAbuseField(name: string): boolean {
  return name === 'network.abuse' || name.startsWith('network.abuse.');
}

/**
 * The items of a batch body, or the catalogue's 400 saying which rule it breaks. Pure, so the rate
 * limiter can read a body the same way the route does.
 */
export function parseBatchBody(body: unknown): string[] {
  if (typeof body !== 'string' || body.trim() === '') {
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

/** The items without repeats, in the order first sent: what a batch answers, and counts against the limits. */
export function distinctItems(items: readonly string[]): string[] {
  return [...new Set(items)];
}

/** An item's JSON, DEL and C1 controls already escaped (the batch's buffer is sent as it is). */
type ItemAnswer = { json: string } | Promise<{ json: string }>;

/**
 * A \`fields\` naming nothing of one kind's answer would answer each item of that kind \`{}\`
 * (\`fields=ip,location.countryCode\` with \`AS15169\` in the batch): the caller is told instead.
 */
export function refuseFieldsThatEmptyAKind(fields: readonly string[][], items: readonly string[]): void {
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

export function answerItem(
  item: string,
  data: IpData | undefined,
  fields: readonly string[][] | undefined,
  lookupHostname: HostnameLookup | undefined,
): ItemAnswer {
  if (/^AS/i.test(item)) {
    if (parseAsn(item) === null) return escaped(JSON.stringify({ error: `Not an ASN: ${ASN_PARAMETER_HINT}.` }));
    const answer = asnAnswerOrError(item, data);
    if (answer instanceof ApiError) return escaped(JSON.stringify({ error: answer.message }));
    return escaped(fields === undefined ? serializeAsnAnswer(answer) : JSON.stringify(pickFields(answer, fields)));
  }
  const asked = parseIpParameter(item);
  if (!asked.ok) {
    return escaped(JSON.stringify({ error: `Not an IP address or an ASN (AS123): ${asked.reason}.` }));
  }
  // No cache of descriptions by address: a new address costs as much as a cache entry's making, and
  // 50,000 entries held 400 MB of heap whose collection doubled an item's CPU (bench/batch-items.ts).
  const made = describeIp(asked.ip, data);
  const description: IpInfo = asked.mappedFrom === undefined ? made : { ...made, mappedFrom: asked.mappedFrom };
  const finish = (answer: IpInfo) =>
    fields === undefined ? { json: serializeIpInfo(answer) } : escaped(JSON.stringify(pickFields(answer, fields)));
  if (lookupHostname === undefined) return finish(description);
  const complete = withHostname(description, lookupHostname);
  return complete instanceof Promise ? complete.then(finish) : finish(complete);
}

function escaped(json: string): { json: string } {
  return { json: escapeControlCharactersInJson(json) };
}

/**
 * The batch's answer, `{"<item>":<answer>,...}` in the items' order, written into one buffer as
 * each item is answered: the answers' strings die young instead of 1,000 of them (500 KB) living
 * until a join, which the garbage collector copied at every scavenge (bench/batch-items.ts). A
 * buffer skips the JSON escaping of DEL and C1 controls (http/control-characters.ts only rewrites
 * strings), so each key and answer comes escaped.
 */
export function answerBatch(
  items: readonly string[],
  data: IpData | undefined,
  fields: readonly string[][] | undefined,
  lookupHostname: HostnameLookup | undefined,
): Buffer | Promise<Buffer> {
  const body = new BodyWriter(items.length);
  if (lookupHostname === undefined) {
    for (const item of items) body.add(item, (answerItem(item, data, fields, undefined) as { json: string }).json);
    return body.end();
  }
  return Promise.all(items.map((item) => answerItem(item, data, fields, lookupHostname))).then((answers) => {
    for (const [i, answer] of answers.entries()) body.add(items[i] as string, answer.json);
    return body.end();
  });
}

class BodyWriter {
  private buffer: Buffer;
  private at = 0;
  constructor(items: number) {
    // About what an address's answer takes; grown when a batch needs more.
    this.buffer = Buffer.allocUnsafe(Math.max(1024, items * 640));
  }
  add(item: string, json: string): void {
    const key = jsonKey(item);
    const room = (key.length + json.length) * 3 + 3;
    if (this.buffer.length - this.at < room) {
      const bigger = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + room));
      this.buffer.copy(bigger, 0, 0, this.at);
      this.buffer = bigger;
    }
    this.buffer[this.at] = this.at === 0 ? 0x7b : 0x2c; // { or ,
    this.at++;
    this.at += this.buffer.write(key, this.at);
    this.buffer[this.at++] = 0x3a; // :
    this.at += this.buffer.write(json, this.at);
  }
  end(): Buffer {
    if (this.at === 0) return Buffer.from('{}');
    this.buffer[this.at++] = 0x7d; // }
    return this.buffer.subarray(0, this.at);
  }
}

/** The item as a JSON string, escaped; an address or an ASN needs no escaping, so most skip JSON.stringify. */
export function jsonKey(item: string): string {
  return /^[0-9A-Za-z.:]*$/.test(item) ? `"${item}"` : escapeControlCharactersInJson(JSON.stringify(item));
}

/**
 * A request's batch items, parsed once and their repeats dropped once: the rate limiter counts the
 * distinct items, then the handler answers the same list.
 */
const parsedBodies = new WeakMap<FastifyRequest, ParsedBody>();
interface ParsedBody {
  sent: string[];
  distinct?: string[];
}
function bodyOf(request: FastifyRequest): ParsedBody {
  let body = parsedBodies.get(request);
  if (body === undefined) {
    body = { sent: parseBatchBody(request.body) };
    parsedBodies.set(request, body);
  }
  return body;
}
export function parsedBody(request: FastifyRequest): string[] {
  return bodyOf(request).sent;
}
export function distinctBodyItems(request: FastifyRequest): readonly string[] {
  const body = bodyOf(request);
  body.distinct ??= distinctItems(body.sent);
  return body.distinct;
}
