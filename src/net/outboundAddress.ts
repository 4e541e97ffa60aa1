import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The rules for connections the server opens to addresses users chose (the crawler, push endpoints):
 * resolve the host, refuse it if any address is not allowed, and connect only to what was vetted.
 */

/** Decides whether the server may open a connection to one resolved IP address. */
export type AddressPolicy = (ip: string) => boolean;

/** A connection the address policy refused; its message is shown to users as a failure reason. */
export class AddressRefused extends Error {
  override name = 'AddressRefused';
  constructor(readonly address: string, readonly description: string) {
    super(`refused: ${address} is ${description}`);
  }
}

// Cloud metadata endpoints get their own wording because "link-local" tells a user nothing.
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
};

/** Parses an address, unwrapping IPv4-mapped IPv6 so `::ffff:127.0.0.1` is judged as `127.0.0.1`. */
function parse(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return undefined;
  return ipaddr.process(bare);
}

/**
 * Only globally routable unicast passes: anything ipaddr.js classifies otherwise (loopback, private,
 * link-local, CGNAT, reserved, documentation, 6to4/NAT64 wrappers that could embed a private v4) is refused.
 */
export function isPublicAddress(ip: string): boolean {
  const parsed = parse(ip);
  if (!parsed) return false;
  return parsed.range() === 'unicast';
}

/** Why an address is refused, in words a user can act on. */
export function describeAddress(ip: string, policy: AddressPolicy): string {
  const parsed = parse(ip);
  if (!parsed) return 'not a valid address';
  if (METADATA.has(parsed.toString())) return 'a cloud metadata address';
  if (policy === isPublicAddress) return RANGE_WORDS[parsed.range()] ?? 'a reserved address';
  return 'not an allowed address';
}

export const allowAll: AddressPolicy = () => true;

/** The policy for a setting such as CRAWL_ALLOW_PRIVATE or OUTBOUND_ALLOW_PRIVATE (tests only): everything, or public unicast only. */
export const outboundPolicy = (allowPrivate: boolean): AddressPolicy => (allowPrivate ? allowAll : isPublicAddress);

/** Throws when the host is an IP literal the policy refuses: Node never calls `lookup` for those. */
export function checkLiteralHost(hostname: string, policy: AddressPolicy): void {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0 && !policy(bare)) throw new AddressRefused(bare, describeAddress(bare, policy));
}

/**
 * A `lookup` for http(s).request that resolves every address of the host and refuses the whole host
 * if any is not allowed, then hands Node only vetted addresses. Connecting to what was vetted (rather
 * than resolving again) closes the DNS-rebinding gap.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family, hints: options.hints }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((entry) => !policy(entry.address));
      if (refused) return callback(new AddressRefused(refused.address, describeAddress(refused.address, policy)), '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`could not resolve ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      return callback(null, first.address, first.family);
    });
  };
}
