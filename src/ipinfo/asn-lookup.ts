import { apiErrors } from '../http/errors.ts';
import { ASN_PARAMETER_HINT, describeAsn, parseAsn } from './answers/asn-answer.ts';
import type { IpData } from './data/ip-data.ts';

/** The answer about one AS, or the catalogue's error: 400 not an ASN, 404 unknown, 503 no ASN data. */
export function asnAnswerOrError(text: string, data: IpData | undefined) {
  const asn = parseAsn(text);
  if (asn === null) return apiErrors.invalidPathParameter('asn', ASN_PARAMETER_HINT);
  if (data?.asnIndex === undefined) return apiErrors.asnDataUnavailable();
  return describeAsn(asn, data) ?? apiErrors.unknownAsn(`AS${asn}`);
}
