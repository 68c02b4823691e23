import type { FastifyReply } from 'fastify';
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
  if (!selection.ok) throw apiErrors.unknownFields(selection.unknown, [...valid]);
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
export function createJsonSender(store: IpDataStore, answers: IpAnswers): IpAnswerSender {
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
    const made = await answers.complete(ip, data);
    return reply.send(bodyOf(made, mappedFrom, fields));
  }
}

/** The cached JSON as it is, or the answer with `mappedFrom` and only the selected fields. */
function bodyOf(made: IpAnswer, mappedFrom: string | undefined, fields: readonly string[][] | undefined): string {
  if (mappedFrom === undefined && fields === undefined) return made.json;
  const answer: IpInfo = mappedFrom === undefined ? made.answer : { ...made.answer, mappedFrom };
  // A selection may leave out what the schema requires, so it is not put through the schema's serializer.
  return fields === undefined ? serializeIpInfo(answer) : JSON.stringify(pickFields(answer, fields));
}
