import { isIP } from 'node:net';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { describeDnsFailure } from '../dns/errors.ts';
import { normaliseQueryName } from '../dns/names.ts';
import { apiErrors } from '../http/errors.ts';
import { agentTool } from '../http/route-config.ts';
import { type InFlightCap, withinInFlightCap } from '../limits/in-flight.ts';
import type { QuestionTally, UpstreamCharges } from '../limits/upstream-cost.ts';
import { type MailChecker, MailLookupFailed } from './checker.ts';
import { type MailReport, mailRouteSchema } from './schema.ts';

const found = (section: { found: boolean }) => (section.found ? 'yes' : 'no');

/** `example.com: MX yes, SPF yes, DMARC p=reject, MTA-STS no, TLS-RPT no; 2 problems: …` (every section's) */
const MAIL_AGENT_TOOL = agentTool<MailReport>('mail_check', (answer) => {
  const { mx, spf, dmarc, dkim, mta_sts, tls_rpt } = answer;
  const problems = [answer, mx, spf, dmarc, ...(dkim ? [dkim] : []), mta_sts, tls_rpt].flatMap((part) => part.problems);
  const listed = problems.length === 0 ? 'no problems' : `${problems.length} problems: ${problems.join('; ')}`;
  return `${answer.domain}: MX ${found(mx)}, SPF ${found(spf)}, DMARC ${dmarc.found ? `p=${dmarc.p}` : 'no'}${dkim ? `, DKIM ${found(dkim)}` : ''}, MTA-STS ${found(mta_sts)}, TLS-RPT ${found(tls_rpt)}; ${listed}`;
});

export interface MailPluginOptions {
  checker: MailChecker;
  cap: InFlightCap;
  charges: UpstreamCharges;
}

export const mailPlugin: FastifyPluginAsyncTypebox<MailPluginOptions> = async (app, { checker, cap, charges }) => {
  app.get(
    '/api/v1/mail',
    { schema: mailRouteSchema, config: { agentTool: MAIL_AGENT_TOOL } },
    async (request, reply) => {
      const domain = mailDomain(request.query.domain);
      const selector = dkimSelector(request.query.dkim_selector, domain);
      const tally: QuestionTally = { questions: 0 };
      try {
        return await withinInFlightCap(cap, request, () => checker.check(domain, selector, tally));
      } catch (error) {
        if (error instanceof MailLookupFailed)
          throw apiErrors.upstream(describeDnsFailure(domain, 'MX', error.dnsError));
        throw error;
      } finally {
        await charges.settle(request, reply, tally);
      }
    },
  );
};

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

// RFC 6376 selectors are sub-domains; underscores are refused by the ABNF but used in the wild.
const SELECTOR_LABEL = /^[a-z0-9][a-z0-9_-]{0,62}$/i;

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
