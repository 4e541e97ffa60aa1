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
 * The per-IP limit's key of a request (`ip:` and `ipLimitKey(req.ip)`, as the generic route limit
 * counts it), remembered per socket address and X-Forwarded-For value. `req.ip` is a function of
 * those two and of the app's `trust proxy` (a fixed setting: TRUST_PROXY), so the same pair always
 * gives the same key; working it out (proxy-addr parses every address of the header and checks it
 * against the trusted ranges, then ipaddr.js normalises the result) is what a request from a known
 * client skips. Kept per app: another app may trust other proxies.
 */
export class IpLimitKeys {
  readonly #bySocket = new Map<string, Map<string, string>>();
  #size = 0;

  /** `ipOf` is `req.ip` (the hot routes give the request express's prototype first, only when it is needed). */
  of(req: Request, ipOf: (req: Request) => string | undefined = (r) => r.ip): string {
    const socket = req.socket.remoteAddress;
    const forwarded = req.headers['x-forwarded-for'] ?? '';
    // A socket that is already gone has no address: nothing to remember it by.
    if (socket === undefined || typeof forwarded !== 'string' || forwarded.length > MAX_FORWARDED_LENGTH) return `ip:${ipLimitKey(ipOf(req))}`;
    let byForwarded = this.#bySocket.get(socket);
    const known = byForwarded?.get(forwarded);
    if (known !== undefined) return known;
    const key = `ip:${ipLimitKey(ipOf(req))}`;
    if (this.#size >= MAX_KEYS) {
      this.#bySocket.clear();
      this.#size = 0;
      byForwarded = undefined;
    }
    if (!byForwarded) this.#bySocket.set(socket, (byForwarded = new Map()));
    byForwarded.set(forwarded, key);
    this.#size++;
    return key;
  }
}
