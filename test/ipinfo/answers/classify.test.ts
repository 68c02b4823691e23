import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ConnectionEvidence, connectionType, ipv4Class } from '../../../src/ipinfo/answers/classify.ts';

test('ipv4Class: boundaries of each class', () => {
  const cases: [string, string | undefined][] = [
    ['0.0.0.0', 'A'], // first address
    ['127.255.255.255', 'A'], // last of A (leading bit 0)
    ['128.0.0.0', 'B'], // first of B (10)
    ['191.255.255.255', 'B'],
    ['192.0.0.0', 'C'], // first of C (110)
    ['223.255.255.255', 'C'],
    ['224.0.0.0', 'D'], // multicast (1110)
    ['239.255.255.255', 'D'],
    ['240.0.0.0', 'E'], // reserved (1111)
    ['255.255.255.255', 'E'],
    ['::ffff:10.0.0.1', 'A'], // mapped IPv4 is an IPv4 peer
    ['2001:db8::1', undefined], // IPv6 has no class
    ['::10.0.0.1', undefined], // IPv4-compatible form is IPv6
    ['256.0.0.0', undefined], // not an address
    ['', undefined],
  ];
  for (const [ip, expected] of cases) assert.equal(ipv4Class(ip), expected, ip);
});

test('connectionType: rules in order of precedence', () => {
  const cases: [string, ConnectionEvidence, string | undefined][] = [
    // 1. MaxMind user_type decides when present.
    ['user_type cellular', { userType: 'cellular' }, 'mobile'],
    ['user_type is case-insensitive', { userType: ' Residential ' }, 'residential'],
    ['user_type business', { userType: 'business' }, 'business'],
    ['user_type cdn', { userType: 'content_delivery_network' }, 'hosting'],
    ['user_type university', { userType: 'university' }, 'education'],
    ['user_type school', { userType: 'school' }, 'education'],
    ['user_type military', { userType: 'military' }, 'government'],
    ['user_type beats the datacenter feed', { userType: 'residential', hostingListed: true }, 'residential'],
    ['user_type router falls through', { userType: 'router', asOrganization: 'Example University' }, 'education'],
    ['unknown user_type falls through', { userType: 'spaceship' }, undefined],
    ['prototype names are not table hits', { userType: 'constructor' }, undefined],
    // 2. Datacenter feed or ASN hit.
    ['feed hit', { hostingListed: true }, 'hosting'],
    ['feed hit beats Corporate', { hostingListed: true, connectionType: 'Corporate' }, 'hosting'],
    ['feed hit beats the AS name', { hostingListed: true, asOrganization: 'T-Mobile USA' }, 'hosting'],
    // 3. MaxMind connection_type.
    ['Cable/DSL', { connectionType: 'Cable/DSL' }, 'residential'],
    ['Cellular', { connectionType: 'Cellular' }, 'mobile'],
    ['Corporate', { connectionType: 'Corporate' }, 'business'],
    ['Satellite is not guessed', { connectionType: 'Satellite' }, undefined],
    ['connection_type beats AS name', { connectionType: 'Cable/DSL', asOrganization: 'Wireless Co' }, 'residential'],
    // 4. AS organisation keywords.
    ['university', { asOrganization: 'Massachusetts Institute of Technology University' }, 'education'],
    ['universidad', { asOrganization: 'Universidad Nacional Autonoma de Mexico' }, 'education'],
    ['college', { asOrganization: 'Dartmouth College' }, 'education'],
    ['.edu', { asOrganization: 'harvard.edu' }, 'education'],
    ['education before hosting', { asOrganization: 'University Cloud Services' }, 'education'],
    ['government', { asOrganization: 'State Government of Victoria' }, 'government'],
    ['gov token', { asOrganization: 'DNIC-AS-GOV' }, 'government'],
    ['mobile', { asOrganization: 'T-Mobile USA, Inc.' }, 'mobile'],
    ['wireless', { asOrganization: 'Cellco Partnership DBA Verizon Wireless' }, 'mobile'],
    ['hosting', { asOrganization: 'Hetzner Online GmbH Hosting' }, 'hosting'],
    ['data center', { asOrganization: 'Local Data Center Ltd' }, 'hosting'],
    ['cloud as a word only', { asOrganization: 'Cloudflare, Inc.' }, undefined],
    ['Telecom is not a rule', { asOrganization: 'Deutsche Telekom AG' }, undefined],
    ['Communications is not a rule', { asOrganization: 'Comcast Cable Communications, LLC' }, undefined],
    ['substring does not count', { asOrganization: 'Automobile Club' }, undefined],
    ['no evidence', {}, undefined],
  ];
  for (const [why, evidence, expected] of cases) assert.equal(connectionType(evidence), expected, why);
});
