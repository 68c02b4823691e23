import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { describeDnsFailure } from '../dns/errors.ts';
import { normaliseQueryName } from '../dns/names.ts';
import { apiErrors } from '../http/errors.ts';
import { commonErrorResponses, okResponse, upstreamErrorResponse } from '../http/schemas.ts';
import { type InFlightCap, inFlightCapText, withinInFlightCap } from '../limits/in-flight.ts';
import { type QuestionTally, UPSTREAM_COST_RULE, type UpstreamCharges } from '../limits/upstream-cost.ts';
import { MAIL_CHECK_TIME_LIMIT_MS, MAX_QUERIES_PER_CHECK, type MailChecker, MailLookupFailed } from './checker.ts';
import { MailReport } from './report.ts';

// RFC 6376 selectors are sub-domains; underscores are refused by the ABNF but used in the wild.
const SELECTOR_LABEL = /^[a-z0-9][a-z0-9_-]{0,62}$/i;

const MailQuery = Type.Object({
  domain: Type.String({
    description: 'The mail domain (IDN allowed, converted to punycode). Not an IP address.',
    examples: ['example.com'],
  }),
  dkim_selector: Type.Optional(
    Type.String({
      description:
        'A DKIM selector (the s= of a signature, e.g. `google`, `selector1`, `s1.mail`): its key at `<selector>._domainkey.<domain>` is checked.',
    }),
  ),
});

const DESCRIPTION = `Mail authentication in one call: MX with addresses, SPF with its RFC 7208 lookup count, DMARC, a DKIM key, MTA-STS and TLS-RPT. Every lookup goes through the service's resolver and cache (\`DNS_SERVERS\`); the domain's own records are asked at once, then MX host addresses and SPF includes level by level. One call asks at most ${MAX_QUERIES_PER_CHECK} DNS questions and takes at most ${MAIL_CHECK_TIME_LIMIT_MS / 1000} s (a lookup still out then is a problem of its section). A domain that does not exist is a 200 with \`exists: false\`; 502 only when neither its MX nor its TXT lookup got an answer (SERVFAIL, timeout). Organisational-domain DMARC fallback and the MTA-STS policy file over HTTPS are not fetched.

${UPSTREAM_COST_RULE}

${inFlightCapText('MAIL')}`;

/**
 * The most descriptors one check may hold at once: a UDP socket per DNS question out, and it never
 * asks more than MAX_QUERIES_PER_CHECK in all.
 */
export const MAIL_SOCKETS_PER_CALL = MAX_QUERIES_PER_CHECK;

/** The domain as a query name, or a 400 naming what is wrong. */
function mailDomain(input: string): string {
  const trimmed = input.trim();
  if (isIP(trimmed) !== 0) throw apiErrors.invalidParameter('domain', 'is an IP address; give a mail domain');
  const name = normaliseQueryName(trimmed);
  if (!name.ok) throw apiErrors.invalidParameter('domain', `must be a domain name (${name.reason})`);
  if (name.name === '.') throw apiErrors.invalidParameter('domain', 'must be a domain name, not the root');
  // The longest name the check asks must be a valid name too.
  if (!normaliseQueryName(`_smtp._tls.${name.name}`).ok) {
    throw apiErrors.invalidParameter('domain', 'is too long to have _smtp._tls and _dmarc records under it');
  }
  return name.name;
}

function dkimSelector(input: string | undefined, domain: string): string | null {
  if (input === undefined) return null;
  const selector = input.trim().toLowerCase();
  const labels = selector.split('.');
  if (selector === '' || !labels.every((label) => SELECTOR_LABEL.test(label))) {
    throw apiErrors.invalidParameter(
      'dkim_selector',
      'must be a DKIM selector: dot-separated labels of letters, digits, - and _ (up to 63 each)',
    );
  }
  if (!normaliseQueryName(`${selector}._domainkey.${domain}`).ok) {
    throw apiErrors.invalidParameter('dkim_selector', 'makes <selector>._domainkey.<domain> longer than 253');
  }
  return selector;
}

export function registerMailRoute(
  app: FastifyInstance,
  checker: MailChecker,
  limits: { cap: InFlightCap; charges: UpstreamCharges },
): void {
  app.get<{ Querystring: { domain: string; dkim_selector?: string } }>(
    '/api/v1/mail',
    {
      schema: {
        summary: 'Mail authentication of a domain: MX, SPF, DMARC, DKIM, MTA-STS, TLS-RPT',
        description: DESCRIPTION,
        tags: ['mail'],
        querystring: MailQuery,
        response: {
          200: okResponse(MailReport, 'The sections, each with found and problems.'),
          ...commonErrorResponses,
          ...upstreamErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const domain = mailDomain(request.query.domain);
      const selector = dkimSelector(request.query.dkim_selector, domain);
      const tally: QuestionTally = { questions: 0 };
      try {
        return await withinInFlightCap(limits.cap, request, () => checker.check(domain, selector, tally));
      } catch (error) {
        if (error instanceof MailLookupFailed)
          throw apiErrors.upstream(describeDnsFailure(domain, 'MX', error.dnsError));
        throw error;
      } finally {
        await limits.charges.settle(request, reply, tally);
      }
    },
  );
}
