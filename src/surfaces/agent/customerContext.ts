import { Router, type Request } from 'express';
import { z } from 'zod';
import type { Actors } from '../../actors/runtime/router';
import type { AppContext } from '../../context';
import { findConversation } from '../../domain/conversations/findConversation';
import { customerContext, visitorEmailOf } from '../../domain/integrations/customerContext';
import { authOf, requireAbility } from '../../http/authenticate';
import { parse } from '../../http/validate';
import { presentCustomerContext, presentLead, presentRevenue } from '../../presenters/customerContext';

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

export const revenueBody = z.object({
  amount: z.number().min(0).max(100_000_000).nullable().optional(),
  currency: z
    .string()
    .refine((code) => /^[A-Za-z]{3}$/.test(code), 'The currency must be a three-letter code like USD.')
    .transform((code) => code.toUpperCase())
    .refine((code) => CURRENCIES.has(code), 'The selected currency is invalid.')
    .optional(),
});

type ConversationRequest = Request<{ conversation: string }>;

/** Agent app API: what the commerce services know about a visitor, and the conversation's revenue and lead. */
export function customerContextRoutes(ctx: AppContext, actors: Actors): Router {
  const router = Router();

  router.get('/conversations/:conversation/customer-context', async (req: ConversationRequest, res) => {
    const { company } = authOf(req);
    const visitor = await visitorEmailOf(company.id, req.params.conversation);
    res.json(presentCustomerContext(await customerContext(ctx, company.id, visitor)));
  });

  router.post('/conversations/:conversation/revenue', requireAbility('handle-conversations'), async (req: ConversationRequest, res) => {
    const body = parse(revenueBody, req.body);
    const { publicId } = await findConversation(authOf(req).company.id, req.params.conversation, { attributes: ['publicId'] });
    res.json(presentRevenue(await actors.ask('conversation', publicId, { type: 'setRevenue', amount: body.amount, currency: body.currency })));
  });

  router.post('/conversations/:conversation/lead', requireAbility('handle-conversations'), async (req: ConversationRequest, res) => {
    const { publicId } = await findConversation(authOf(req).company.id, req.params.conversation, { attributes: ['publicId'] });
    const lead = await actors.ask('conversation', publicId, { type: 'saveLead' });
    res.status(lead.created ? 201 : 200).json({ lead: presentLead(lead) });
  });

  return router;
}
