import { z } from 'zod';
import { contextMeta, visitorId, visitorMessage } from '../../http/visitorFields';

const prechatVisitor = z.object({
  name: z.string().max(255).optional(),
  email: z.string().max(255).optional(),
  phone: z.string().max(64).optional(),
});

export const streamBody = z.object({
  visitor_id: visitorId,
  message: visitorMessage,
  conversation_id: z.uuid().optional(),
  /** The widget's own id for this message, so a retry is never stored or answered twice. */
  client_id: z.string().max(64).optional(),
  meta: contextMeta.and(z.object({ visitor: prechatVisitor.optional() })).optional(),
  identity: z.string().max(4000).optional(),
});

export const conversationBody = z.object({ visitor_id: visitorId, conversation_id: z.uuid() });

export const stateQuery = z.object({
  visitor_id: visitorId,
  after: z.coerce.number().int().min(0).optional(),
});
