import { Router } from 'express';
import { buildOpenApiDocument } from './document';
import type { Endpoint } from './registry';

/** GET /openapi.json: built once, on first request (the schemas do not change while the process runs). */
export function openApiRoutes(serverUrl: string, endpoints: readonly Endpoint[]): Router {
  let document: string | undefined;
  return Router().get('/openapi.json', (_req, res) => {
    document ??= JSON.stringify(buildOpenApiDocument(serverUrl, endpoints));
    res.type('application/json').send(document);
  });
}
