import { ABUSE_TOOL } from './abuse/config.ts';
import type { Config } from './config.ts';
import { HTTP_CHECK_TOOL } from './httpcheck/tool.ts';
import { MAIL_TOOL } from './mail/tool.ts';
import { PORT_CHECK_TOOL } from './port/tool.ts';
import { SSL_TOOL } from './tls/tool.ts';
import { WHOIS_TOOL } from './whois/tool.ts';

/** What each capability that opens outgoing connections asks of the in-flight caps (limits/upstream-caps.ts). */
export function upstreamDemands(config: Config) {
  return {
    ssl: {
      maxInFlight: config.tlsMaxInFlight,
      maxPerClient: config.tlsMaxInFlightPerClient,
      socketsPerCall: SSL_TOOL.socketsPerCall,
    },
    http: {
      maxInFlight: config.httpCheckMaxInFlight,
      maxPerClient: config.httpCheckMaxInFlightPerClient,
      socketsPerCall: HTTP_CHECK_TOOL.socketsPerCall,
    },
    mail: {
      maxInFlight: config.mailMaxInFlight,
      maxPerClient: config.mailMaxInFlightPerClient,
      socketsPerCall: MAIL_TOOL.socketsPerCall,
    },
    whois: {
      maxInFlight: config.whoisMaxInFlight,
      maxPerClient: config.whoisMaxInFlightPerClient,
      socketsPerCall: WHOIS_TOOL.socketsPerCall,
    },
    port: {
      maxInFlight: config.portCheckMaxInFlight,
      maxPerClient: config.portCheckMaxInFlightPerClient,
      socketsPerCall: PORT_CHECK_TOOL.socketsPerCall,
    },
    abuse: {
      maxInFlight: config.abuseMaxInFlight,
      maxPerClient: config.abuseMaxInFlightPerClient,
      socketsPerCall: ABUSE_TOOL.socketsPerCall,
    },
  };
}
