import type { RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import { routeNotFound } from '../http/errorHandler';
import { hashSecret, secretMatches } from '../security/tokens';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Who may read /metrics (docs/operations.md "Metrics"): a loopback client, or anyone presenting
 * `Authorization: Bearer <METRICS_TOKEN>` when one is set. Everyone else gets the 404 of an unknown
 * route, so the endpoint does not advertise itself. Loopback means both the connection and the client
 * address express computes with TRUST_PROXY (`req.ip`): a reverse proxy on the same host does not make
 * its internet clients loopback, and a forged X-Forwarded-For (TRUST_PROXY=true) does not make a
 * remote connection loopback.
 */
export function metricsAccess(token: string | undefined): RequestHandler {
  // Compared as SHA-256 digests in constant time, like every other bearer secret.
  const expected = token === undefined ? undefined : hashSecret(token);
  return (req, res, next) => {
    if ((isLoopback(req.socket.remoteAddress) && isLoopback(req.ip)) || (expected !== undefined && bearerMatches(req.get('authorization'), expected))) {
      next();
      return;
    }
    routeNotFound(req, res, next);
  };
}

function bearerMatches(header: string | undefined, expected: string): boolean {
  const presented = BEARER.exec(header ?? '')?.[1];
  return presented !== undefined && secretMatches(presented, expected);
}

/** `::ffff:127.0.0.1` (IPv4 on a dual-stack socket) counts as the IPv4 loopback it is. */
function isLoopback(ip: string | undefined): boolean {
  return ip !== undefined && ipaddr.isValid(ip) && ipaddr.process(ip).range() === 'loopback';
}
