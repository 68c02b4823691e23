import { isIPv4, isIPv6 } from 'node:net';

/**
 * The address goes to a tool's argv unchanged, so it must be nothing but an IP literal of the
 * requested family: the last line of defence against option injection (`-f` would flood) even though
 * routes validate first. Zone ids (`fe80::1%eth0`) are refused too: they name an interface of this
 * machine, which a public caller has no business choosing.
 */
export function checkAddress(address: string, family: 4 | 6): string {
  if (address.startsWith('-')) {
    throw new TypeError(`address must not start with '-': ${JSON.stringify(address)}`);
  }
  const valid = family === 4 ? isIPv4(address) : isIPv6(address) && !address.includes('%');
  if (!valid) {
    throw new TypeError(`address is not a literal IPv${family} address: ${JSON.stringify(address)}`);
  }
  return address;
}
