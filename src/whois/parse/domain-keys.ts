// The keys registries use for each field, normalised as in entries.ts (lower case, single spaces).
// For names, the registrar and statuses the order is precedence: the earlier key wins. Dates are
// taken from the earliest line that has any of their keys instead, because RPSL-style replies put
// the domain object first and its contacts (with their own 'created:' lines) after it.

export const DOMAIN_NAME_KEYS = [
  'domain name',
  'puny name',
  'ascii',
  'domain',
  'domainname',
  'domain name (ascii)',
  'domain information domain name',
  'query',
  'nom de domaine',
  'dominio',
  'nombre de dominio',
  'domain-name',
];

export const REGISTRAR_KEYS = [
  'registrar organization',
  'registrar name',
  'registrar',
  'sponsoring registrar',
  'sponsoring registrar organization',
  'current registrar',
  'current registar',
  'registrar of record',
  'registration service provider',
  'authorized agency',
  'registrar-name',
  'registrar handle',
];

export const CREATION_KEYS = [
  'creation date',
  'created',
  'created on',
  'created date',
  'create date',
  'domain create date',
  'domain created',
  'registered on',
  'registered',
  'registration date',
  'registration time',
  'registered date',
  'domain registration date',
  'domain record activated',
  'record created',
  'created at',
  'commencement date',
  'fecha de registro',
  'fecha de creación',
  'activated',
  'first registration date',
  'record created on',
  'domain name commencement date',
  'assigned',
  'date approved',
  'acivated',
  'domain dateregistered',
  'domain registered',
  'registration',
];

export const EXPIRATION_KEYS = [
  'registry expiry date',
  'expiration date',
  'registrar registration expiration date',
  'expiry date',
  'expires',
  'expires on',
  'expire date',
  'expiration time',
  'expire',
  'expiry',
  'paid-till',
  'valid until',
  'domain expiration date',
  'registry expiration date',
  'record expires on',
  'renewal date',
  'domain expires',
  'expires at',
  'fecha de vencimiento',
  'fecha de expiración',
  'expire-date',
  'record expires on',
  'record will expire on',
  'validity',
  'date renewal',
  'record expired',
  'expired',
  'valid-date',
  'domain datebilleduntil',
  'exp date',
];

export const UPDATED_KEYS = [
  'updated date',
  'last updated',
  'last update',
  'last-update',
  'last modified',
  'last-modified',
  'changed',
  'modified',
  'updated',
  'updated on',
  'last updated on',
  'last updated date',
  'domain last updated date',
  'record last updated on',
  'domain record last updated',
  'fecha de última actualización',
  'last-updated',
  'record last updated on',
  'record last modified',
  'domain datelastmodified',
];

/**
 * Name-server keys come numbered and in many languages ('Name Server 1', 'ns_name_01',
 * 'ns1_hostname', 'Primary Server Hostname', 'Servidores de nombre (Domain servers)'), so they are
 * matched by pattern. '.dk' uses 'DNS:' for the domain itself, so a bare 'dns' is not a name-server key.
 */
export const NAME_SERVER_KEY =
  /^(?:name ?servers?|nameservers? hostname|nserver|ns(?: \d+| name \d+|\d+ hostname)?|hostname|host name|domain (?:name )?servers?|dns servers?|(?:primary|secondary) (?:name )?server(?: hostname)?|servidores de nombre|nameservers? in (?:the )?listed order|name servers in the listed order|domain name servers listed in order|domain servers in listed order|name server information|name servers information|domain nameservers|dns name)(?: \d+)?$/;

export const STATUS_KEYS = ['domain status', 'status', 'state', 'registration status', 'epp status'];

export const DNSSEC_KEYS = ['dnssec', 'dnssec signed'];
