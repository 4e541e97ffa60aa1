import { z } from 'zod';
import { widgetCatalogueCodes } from '../surfaces/assets';
import { healthy, notReady, openApiDocument, ready } from './responses/ops';
import type { Endpoint } from './registry';

const ops = { surface: 'ops', auth: 'none' } as const;

/**
 * Operations endpoints and the files browsers load: no token, no body. Their routes are mounted by
 * hand (src/ops, src/surfaces/assets.ts, src/surfaces/inboxApp.ts, src/openapi/routes.ts), so these
 * are descriptions only; test/integration/openapi.test.ts walks the app's routes to keep them in step.
 */
export const OPS_ENDPOINTS: Endpoint[] = [
  { ...ops, method: 'get', path: '/healthz', summary: 'The process answers', responses: { 200: { description: 'Alive.', json: healthy } } },
  {
    ...ops,
    method: 'get',
    path: '/readyz',
    summary: "Every dependency answers (database, its lock, Redis, cluster membership, this node's shards)",
    responses: { 200: { description: 'Ready.', json: ready }, 503: { description: 'Not ready: the failing parts are named.', json: notReady } },
  },
  {
    ...ops,
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics (docs/operations.md names each one)',
    description: 'For loopback clients (the address after TRUST_PROXY), or with `Authorization: Bearer <METRICS_TOKEN>` when that is set.',
    responses: {
      200: { description: 'Prometheus text format.', media: 'text/plain' },
      404: 'Any other client: the answer of an unknown route, so the endpoint does not advertise itself.',
    },
  },
  { ...ops, method: 'get', path: '/openapi.json', summary: 'This document', responses: { 200: { description: 'OpenAPI 3.1.', json: openApiDocument } } },
  {
    ...ops,
    method: 'get',
    path: '/widget.js',
    summary: 'The embed script (gzipped when accepted, ETag, 5-minute cache)',
    responses: { 200: { description: 'The script.', media: 'application/javascript' }, 304: { description: 'Not modified (`If-None-Match`).' } },
  },
  {
    ...ops,
    method: 'get',
    path: '/widget/i18n/{language}.json',
    summary: "A language catalogue of the widget's own texts, which widget.js loads when the visitor's language is not English",
    description: 'Keys as in the English catalogue inside widget.js; docs/widget.md "Languages".',
    params: { language: z.enum(widgetCatalogueCodes()).describe('ISO 639-1 code of the language') },
    responses: {
      200: { description: 'The catalogue: key -> text, `{name}` marks a value filled in.', json: z.record(z.string(), z.string()) },
      304: { description: 'Not modified (`If-None-Match`).' },
      404: 'No catalogue for that language (the widget then stays in English).',
    },
  },
  {
    ...ops,
    method: 'get',
    path: '/brand/logo.svg',
    summary: 'The default portal brand logo',
    responses: { 200: { description: 'The logo.', media: 'image/svg+xml' } },
  },
  {
    ...ops,
    method: 'get',
    path: '/',
    summary: 'Single-node mode only: a demo page that embeds the demo chatbot',
    responses: { 200: { description: 'The page.', media: 'text/html' } },
  },
  {
    ...ops,
    method: 'get',
    path: '/chat/{key}',
    summary: "A page holding only the chatbot's widget: where an offline follow-up mail's link lands (docs/routing.md)",
    description: 'The link carries its token in the URL fragment (`#parley-continue=...`), which the widget hands to `GET /widget/{key}/conversation` as `X-Continue`.',
    params: { key: z.string().regex(/^[\w-]{1,100}$/).describe('The chatbot public key') },
    responses: { 200: { description: 'The page.', media: 'text/html' }, 404: 'Not a public key.' },
  },
  {
    ...ops,
    method: 'get',
    path: '/inbox',
    summary: 'The web inbox (a single-page app on the agent API); every path below /inbox without a file extension is a deep link to it',
    responses: {
      200: { description: 'The page (or one of its modules and styles at /inbox/<file>).', media: 'text/html' },
      503: { description: 'The inbox was not built (`npm run build`).', media: 'text/plain' },
    },
  },
];
