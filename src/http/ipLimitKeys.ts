import type { Request } from 'express';
import { ipLimitKey } from './rateLimit';

/**
 * Past this many remembered pairs the memory starts over (a few MB at most): made-up X-Forwarded-For
 * values must not grow it, and a node's regular clients (every open page beats) should fit.
 */
const MAX_KEYS = 50_000;
/** A longer header (a chain of proxies, or junk) is worked out every time rather than kept. */
const MAX_FORWARDED_LENGTH = 128;

/**
 * An IPv4 address as ipaddr.js writes it: four decimal parts 0-255 without leading zeros. Its limit
 * key is itself (`ipLimitKey` of it returns it unchanged); other spellings (`010.0.0.1` is octal to
 * ipaddr.js, `::ffff:` forms, spaces) go the general way.
 */
const PLAIN_IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/** Express's compiled `trust proxy` (proxy-addr's): whether the address at hop `i` (0: the socket's) is a trusted proxy. */
export type TrustProxyFn = (address: string, hop: number) => boolean;

/**
 * The per-IP limit's key of a request (`ip:` and `ipLimitKey(req.ip)`, as the generic route limit
 * counts it), remembered per socket address and X-Forwarded-For value. `req.ip` is a function of
 * those two and of the app's `trust proxy` (a fixed setting: TRUST_PROXY), so the same pair always
 * gives the same key; working it out (proxy-addr parses every address of the header and checks it
 * against the trusted ranges, then ipaddr.js normalises the result) is what a request from a known
 * client skips. Kept per app: another app may trust other proxies.
 *
 * A pair not seen before (every new visitor's first beat) is worked out without proxy-addr in the
 * common case, with the same result: an X-Forwarded-For of one plain IPv4 address (or none). Then
 * proxy-addr's walk is one step: the header's address if the socket's is trusted at hop 0, else the
 * socket's (with no header, the socket's). Whether a socket address is trusted at hop 0 is asked of
 * the app's own trust function once per socket address (a proxy's: a few), not once per client.
 */
export class IpLimitKeys {
  readonly #bySocket = new Map<string, Map<string, string>>();
  /** Socket address -> whether `trust proxy` trusts it at hop 0; the socket's own key when it is not plain IPv4. */
  readonly #sockets = new Map<string, { trusted: boolean; key: string }>();
  #size = 0;

  /** `trustOf`: the app's `trust proxy fn` for a request (undefined: none known, always ask `req.ip`). */
  constructor(private readonly trustOf: (req: Request) => TrustProxyFn | undefined = (req) => req.app?.get('trust proxy fn') as TrustProxyFn | undefined) {}

  /** `ipOf` is `req.ip` (the hot routes give the request express's prototype first, only when it is needed). */
  of(req: Request, ipOf: (req: Request) => string | undefined = (r) => r.ip): string {
    const socket = req.socket.remoteAddress;
    const forwarded = req.headers['x-forwarded-for'] ?? '';
    // A socket that is already gone has no address: nothing to remember it by.
    if (socket === undefined || typeof forwarded !== 'string' || forwarded.length > MAX_FORWARDED_LENGTH) return `ip:${ipLimitKey(ipOf(req))}`;
    let byForwarded = this.#bySocket.get(socket);
    const known = byForwarded?.get(forwarded);
    if (known !== undefined) return known;
    const key = this.#unseen(req, socket, forwarded) ?? `ip:${ipLimitKey(ipOf(req))}`;
    if (this.#size >= MAX_KEYS) {
      this.#bySocket.clear();
      this.#sockets.clear();
      this.#size = 0;
      byForwarded = undefined;
    }
    if (!byForwarded) this.#bySocket.set(socket, (byForwarded = new Map()));
    byForwarded.set(forwarded, key);
    this.#size++;
    return key;
  }

  /** The key of a pair not seen before, when it is the common case described above; undefined: ask `req.ip`. */
  #unseen(req: Request, socket: string, forwarded: string): string | undefined {
    if (forwarded !== '' && !PLAIN_IPV4.test(forwarded)) return undefined;
    const own = this.#socket(req, socket);
    if (!own) return undefined;
    return forwarded !== '' && own.trusted ? `ip:${forwarded}` : own.key;
  }

  #socket(req: Request, socket: string): { trusted: boolean; key: string } | undefined {
    let own = this.#sockets.get(socket);
    if (own) return own;
    const trust = this.trustOf(req);
    if (typeof trust !== 'function') return undefined;
    own = { trusted: trust(socket, 0), key: `ip:${PLAIN_IPV4.test(socket) ? socket : ipLimitKey(socket)}` };
    this.#sockets.set(socket, own);
    return own;
  }
}
