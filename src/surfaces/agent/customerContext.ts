import { Router, type Request } from 'express';
import { z } from 'zod';
import type { AppContext } from '../../context';
import { customerContext, visitorEmailOf } from '../../domain/integrations/customerContext';
import { setRevenue } from '../../domain/leads/revenue';
import { saveLead } from '../../domain/leads/saveLead';
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
export function customerContextRoutes(ctx: AppContext): Router {
  const router = Router();

  router.get('/conversations/:conversation/customer-context', async (req: ConversationRequest, res) => {
    const { company } = authOf(req);
    const visitor = await visitorEmailOf(company.id, req.params.conversation);
    res.json(presentCustomerContext(await customerContext(ctx, company.id, visitor)));
  });

  router.post('/conversations/:conversation/revenue', requireAbility('handle-conversations'), async (req: ConversationRequest, res) => {
    const body = parse(revenueBody, req.body);
    res.json(presentRevenue(await setRevenue(authOf(req).company.id, req.params.conversation, body)));
  });

  router.post('/conversations/:conversation/lead', requireAbility('handle-conversations'), async (req: ConversationRequest, res) => {
    const lead = await saveLead(authOf(req).company.id, req.params.conversation);
    res.status(lead.created ? 201 : 200).json({ lead: presentLead(lead) });
  });

  return router;
}
