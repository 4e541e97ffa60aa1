import { z } from 'zod';
import { notBlank } from '../../http/validate';

export const visitorId = z.string().max(100).refine(notBlank, 'The visitor id field is required.');

/** A small free-form object: enough for page context, never a way to store megabytes per message. */
const meta = z
  .record(z.string().max(100), z.unknown())
  .refine((value) => JSON.stringify(value).length <= 16_000, 'The meta field must be at most 16000 characters as JSON.');

const prechatVisitor = z.object({
  name: z.string().max(255).optional(),
  email: z.string().max(255).optional(),
  phone: z.string().max(64).optional(),
});

export const streamBody = z.object({
  visitor_id: visitorId,
  message: z.string().max(4000).refine(notBlank, 'The message field must not be empty or only whitespace.'),
  conversation_id: z.uuid().optional(),
  /** Not in SPEC.md: the widget's own id for this message, so a retry is never stored or answered twice. */
  client_id: z.string().max(64).optional(),
  meta: meta.and(z.object({ visitor: prechatVisitor.optional() })).optional(),
  identity: z.string().max(4000).optional(),
});

export const conversationBody = z.object({ visitor_id: visitorId, conversation_id: z.uuid() });

export const stateQuery = z.object({
  visitor_id: visitorId,
  after: z.coerce.number().int().min(0).optional(),
});
