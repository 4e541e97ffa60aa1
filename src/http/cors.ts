import type { RequestHandler } from 'express';

/**
 * CORS for a surface that browsers on any site may call. Nothing is ever sent with credentials
 * (bearer tokens travel in a header, visitors' ids in the body or a header), so a wildcard origin gives a
 * foreign page nothing it could not get by calling the API itself. Preflights are answered here
 * and cached for a day. Mounted before body parsing, so even a malformed body's 400 carries the header.
 */
export function openToEveryOrigin(options: { methods: string; headers: string }): RequestHandler {
  return (req, res, next) => {
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Access-Control-Expose-Headers', 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-Request-Id');
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('Access-Control-Allow-Methods', options.methods);
    res.setHeader('Access-Control-Allow-Headers', options.headers);
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
  };
}
