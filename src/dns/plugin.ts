import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { presentDohFailure, presentDohJson, wantsDnsJson } from './doh-json.ts';
import { DnsError, describeDnsFailure } from './errors.ts';
import { parseFlagParam } from './flag-param.ts';
import { formatRecordValue } from './format.ts';
import type { QueryFlags } from './message.ts';
import { normaliseQueryName, toPtrName } from './names.ts';
import { inShownOrder } from './records.ts';
import type { QueryResult, Resolver } from './resolver.ts';
import {
  type ApiRecordType,
  DNS_JSON_TYPE,
  type DnsAnswer,
  type DohJsonAnswer,
  dnsRouteSchema,
  dohJsonRouteSchema,
} from './schema.ts';
import { isMetaType, queryableType, typeNumber } from './types.ts';

const listed = (values: readonly string[]) =>
  values.length === 0 ? 'none' : values.slice(0, 5).join(', ') + (values.length > 5 ? `, … (${values.length})` : '');

/** `example.com MX: NOERROR, records: 10 mx1.example.com (TTL 300), …` */
const DNS_TOOL = agentTool<Static<typeof DnsAnswer>>(
  'dns_lookup',
  (answer) =>
    `${answer.host} ${answer.record_type}: ${answer.status}${answer.ad === undefined ? '' : answer.ad ? ', DNSSEC validated' : ', not validated'}, records: ${listed(answer.records.map((record) => `${record.value} (TTL ${record.ttl})`))}`,
);

/** `Status 0, answers: 93.184.215.14 (TTL 300)` */
const DNS_JSON_TOOL = agentTool<Static<typeof DohJsonAnswer>>(
  'dns_json',
  (answer) =>
    `Status ${answer.Status}${answer.AD ? ', AD' : ''}, answers: ${listed((answer.Answer ?? []).map((record) => `${record.data} (TTL ${record.TTL})`))}`,
);

export interface DnsPluginOptions {
  resolver: Resolver;
}

export const dnsPlugin: FastifyPluginAsyncTypebox<DnsPluginOptions> = async (app, { resolver }) => {
  const dnsRoute = { schema: dnsRouteSchema, preValidation: upperCaseRecordType, config: { agentTool: DNS_TOOL } };
  app.get('/api/v1/dns', dnsRoute, async (request) => {
    const type = request.query.record_type;
    const dnssec = parseFlagParam('dnssec', request.query.dnssec);
    const name = queryName(request.query.host, type);
    try {
      const options = dnssec ? { flags: { dnssecOk: true } } : {};
      return presentDnsAnswer(name, type, await resolver.query(name, type, options), dnssec);
    } catch (error) {
      if (error instanceof DnsError) throw apiErrors.upstream(describeDnsFailure(name, type, error));
      throw error;
    }
  });

  app.get(
    '/api/v1/dns-json',
    { schema: dohJsonRouteSchema, config: { agentTool: DNS_JSON_TOOL } },
    async (request, reply) => {
      const { query } = request;
      const ct = query.ct?.trim().toLowerCase();
      if (ct !== undefined && ct !== '' && ct !== DNS_JSON_TYPE && ct !== 'application/json') {
        throw apiErrors.invalidParameter(
          'ct',
          `must be ${DNS_JSON_TYPE} or application/json (DNS wire format is not offered)`,
        );
      }
      const typeText = query.type?.trim() || 'A';
      const type = queryableType(typeText);
      if (type === undefined) {
        throw apiErrors.invalidParameter(
          'type',
          isMetaType(typeText)
            ? `${typeText} is not a record type this endpoint asks for (ANY, AXFR, IXFR, OPT, TKEY, TSIG, MAILA, MAILB)`
            : 'must be a record type mnemonic (A, AAAA, MX, HTTPS, TYPE99...) or a number from 1 to 65535',
        );
      }
      const typeCode = typeNumber(type) ?? 0;
      const name = normaliseQueryName(query.name.trim());
      if (!name.ok) throw apiErrors.invalidParameter('name', `must be a domain name (${name.reason})`);
      const flags: QueryFlags = {
        dnssecOk: parseFlagParam('do', query.do),
        checkingDisabled: parseFlagParam('cd', query.cd),
        authenticatedData: true,
      };
      reply.type(wantsDnsJson(request.headers.accept, query.ct) ? DNS_JSON_TYPE : 'application/json; charset=utf-8');
      try {
        return presentDohJson(name.name, typeCode, await resolver.query(name.name, type, { flags }));
      } catch (error) {
        if (!(error instanceof DnsError)) throw error;
        const answered = presentDohFailure(name.name, typeCode, flags, error);
        if (answered !== null) return answered;
        throw apiErrors.upstream(describeDnsFailure(name.name, typeText, error));
      }
    },
  );
};

function queryName(host: string, type: ApiRecordType): string {
  if (type === 'PTR') {
    const ptr = toPtrName(host.trim());
    if (!ptr.ok) throw apiErrors.invalidParameter('host', `for PTR, an IP address or a reverse name (${ptr.reason})`);
    return ptr.name;
  }
  if (isIP(host.trim()) !== 0) {
    throw apiErrors.invalidParameter('host', 'is an IP address; use record_type=PTR for its reverse name');
  }
  const name = normaliseQueryName(host.trim());
  if (!name.ok) throw apiErrors.invalidParameter('host', `must be a domain name (${name.reason})`);
  return name.name;
}

function presentDnsAnswer(host: string, type: ApiRecordType, result: QueryResult, dnssec: boolean) {
  const answer = {
    host,
    record_type: type,
    status: result.rcode,
    records: inShownOrder(result.answers).map((record) => ({
      record_type: record.type,
      value: formatRecordValue(record),
      ttl: record.ttl,
      name: record.name,
    })),
    cached: result.fromCache,
  };
  return dnssec ? { ...answer, ad: result.flags?.ad ?? false } : answer;
}

/** Runs before validation, so the query is still what the client sent: nothing is assumed of it. */
function upperCaseRecordType(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const query: unknown = request.query;
  if (typeof query === 'object' && query !== null && 'record_type' in query && typeof query.record_type === 'string') {
    query.record_type = query.record_type.trim().toUpperCase();
  }
  done();
}
