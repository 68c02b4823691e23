import type { FastifyReply, FastifyRequest } from 'fastify';
import { parseAbuseAddress } from '../abuse/abuse-contact.ts';
import { type AbuseContact, AbuseLookupError, type AbuseService } from '../abuse/service.ts';
import { apiErrors } from '../http/errors.ts';
import { CALLER_SPECIFIC_CACHE_CONTROL } from '../http/schemas.ts';
import { type IpAnswer, type IpAnswers, type IpInfo, serializeIpInfo, snapshotOf } from './answers/ip-answers.ts';
import { IpInfoBody } from './answers/json-schema.ts';
import { creditData } from './attribution.ts';
import type { IpDataStore } from './data/ip-data-store.ts';
import { fieldPaths, parseFields, pickFields } from './fields.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Every name `fields` accepts on the /json routes. */
export const IP_FIELD_NAMES: readonly string[] = fieldPaths(IpInfoBody);
const IP_FIELDS = new Set(IP_FIELD_NAMES);

/** The parsed `fields` parameter, or undefined for the whole answer; a 400 for names no answer has. */
export function selectedFields(text: string | undefined, valid: ReadonlySet<string> = IP_FIELDS) {
  if (text === undefined) return undefined;
  const selection = parseFields(text, valid);
  if (!selection.ok) {
    // Only the batch leaves out names /json has (network.abuse): it is told why, not that they do not exist.
    const notInBatch = selection.unknown.filter((name) => IP_FIELDS.has(name));
    if (notInBatch.length > 0) {
      throw apiErrors.invalidParameter(
        'fields',
        `${notInBatch.join(', ')} ${notInBatch.length > 1 ? 'are' : 'is'} not answered in a batch (each address would be an RDAP lookup); ask /api/v1/json/{ip} or /api/v1/abuse`,
      );
    }
    throw apiErrors.unknownFields(selection.unknown, [...valid]);
  }
  return selection.paths;
}

/** Sends the /json answer about `ip`: the cached JSON, or with `mappedFrom` and only `fields`. */
export type IpAnswerSender = (
  ip: string,
  mappedFrom: string | undefined,
  fields: readonly string[][] | undefined,
  reply: FastifyReply,
) => Promise<FastifyReply>;

/** What /api/v1/json and /api/v1/json/{ip} send (the text face's /json is ifconfig.co's object: src/text/). */
export function createJsonSender(store: IpDataStore, answers: IpAnswers, abuse?: AbuseService): IpAnswerSender {
  return answerAbout;

  // Plain async: the synchronous version saved 1.4% of main-thread instructions per /api/v1/json
  // request (109.4k against 110.9k, bench:instructions json, November 2026), under the 2% that pays for it.
  async function answerAbout(
    ip: string,
    mappedFrom: string | undefined,
    fields: readonly string[][] | undefined,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const data = await snapshotOf(store);
    creditData(reply, data);
    reply.header('cache-control', CALLER_SPECIFIC_CACHE_CONTROL);
    reply.type(JSON_TYPE);
    const asksAbuse = abuse !== undefined && fields?.some(([top, child]) => top === 'network' && child === 'abuse');
    if (!asksAbuse) return reply.send(bodyOf(await answers.complete(ip, data), mappedFrom, fields, undefined));
    const [made, contact] = await Promise.all([answers.complete(ip, data), networkAbuse(abuse, ip, reply.request)]);
    return reply.send(bodyOf(made, mappedFrom, fields, contact));
  }
}

/** Undefined for an address no registry holds, or whose registry names no contact; a failure is the answer's 502. */
async function networkAbuse(
  abuse: AbuseService,
  ip: string,
  request: FastifyRequest,
): Promise<AbuseContact | undefined> {
  if (!parseAbuseAddress(ip).ok) return undefined;
  try {
    const finding = await abuse.lookup(ip, request);
    return finding.found ? finding.contact : undefined;
  } catch (error) {
    throw error instanceof AbuseLookupError ? apiErrors.upstream(error.message) : error;
  }
}

/** The cached JSON as it is, or the answer with `mappedFrom`, the abuse contact and only the selected fields. */
function bodyOf(
  made: IpAnswer,
  mappedFrom: string | undefined,
  fields: readonly string[][] | undefined,
  abuse: AbuseContact | undefined,
): string | Buffer {
  if (mappedFrom === undefined && fields === undefined) return made.json;
  const answer: IpInfo = mappedFrom === undefined ? made.answer : { ...made.answer, mappedFrom };
  if (fields === undefined) return serializeIpInfo(answer);
  // A selection may leave out what the schema requires, so it is not put through the schema's serializer.
  const whole = abuse === undefined ? answer : { ...answer, network: { ...answer.network, abuse } };
  return JSON.stringify(pickFields(whole, fields));
}
