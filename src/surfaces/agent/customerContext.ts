import { z } from 'zod';
import { findConversation } from '../../domain/conversations/findConversation';
import { customerContext, visitorEmailOf } from '../../domain/integrations/customerContext';
import { authOf } from '../../http/authenticate';
import { customerContext as customerContextShape, lead, revenue } from '../../openapi/responses/agent';
import { presentCustomerContext, presentLead, presentRevenue } from '../../presenters/customerContext';
import { endpoint } from '../endpoint';

const CURRENCY_CODES = Intl.supportedValuesOf('currency');
const CURRENCIES = new Set(CURRENCY_CODES);

export const revenueBody = z.object({
  amount: z.number().min(0).max(100_000_000).nullable().optional(),
  // Any case is read; the document lists the upper- and lower-case codes, which is what clients send.
  currency: z
    .string()
    .regex(/^[A-Za-z]{3}$/, 'The currency must be a three-letter code like USD.')
    .meta({ enum: [...CURRENCY_CODES, ...CURRENCY_CODES.map((code) => code.toLowerCase())] })
    .transform((code) => code.toUpperCase())
    .refine((code) => CURRENCIES.has(code), 'The selected currency is invalid.')
    .optional(),
});

const agent = { surface: 'agent', auth: 'agent' } as const;
const handles = { ...agent, ability: 'handle-conversations' } as const;

/** Agent app API: what the commerce services know about a visitor, and the conversation's revenue and lead. */
export const customerContextEndpoints = [
  endpoint({
    ...agent,
    method: 'get',
    path: '/api/agent/conversations/{conversation}/customer-context',
    summary: 'What the connected store (Shopify) and payments (Stripe) know about the visitor',
    description:
      'Only the email of a verified identity (widget identity token) is looked up; a typed email is shown with `email_source: "typed"`, nothing is looked up and `lookup_skipped` says why. A connected service that fails never fails the request: its block keeps `connected: true`, is empty and carries `error`.',
    responses: { 200: { description: 'Orders and billing, by service.', json: customerContextShape } },
    handler: async ({ ctx }, req, res) => {
      const { company } = authOf(req);
      const visitor = await visitorEmailOf(company.id, req.params.conversation);
      res.json(presentCustomerContext(await customerContext(ctx, company.id, visitor)));
    },
  }),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/revenue',
    summary: "Set the conversation's revenue (null clears it)",
    body: { schema: revenueBody, examples: [{ amount: 129.5, currency: 'eur' }, { amount: null }] },
    responses: { 200: { description: 'The revenue as stored.', json: revenue } },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const body = parseBody();
      const { publicId } = await findConversation(authOf(req).company.id, req.params.conversation, { attributes: ['publicId'] });
      res.json(presentRevenue(await actors.ask('conversation', publicId, { type: 'setRevenue', amount: body.amount, currency: body.currency })));
    },
  }),
  endpoint({
    ...handles,
    method: 'post',
    path: '/api/agent/conversations/{conversation}/lead',
    summary: 'Save the captured contact details as a lead (one per conversation)',
    responses: {
      200: { description: 'The existing lead, refreshed.', json: lead },
      201: { description: 'A new lead.', json: lead },
      422: 'No name, email or phone has been captured yet.',
    },
    handler: async ({ actors }, req, res) => {
      const { publicId } = await findConversation(authOf(req).company.id, req.params.conversation, { attributes: ['publicId'] });
      const lead = await actors.ask('conversation', publicId, { type: 'saveLead' });
      res.status(lead.created ? 201 : 200).json({ lead: presentLead(lead) });
    },
  }),
];
