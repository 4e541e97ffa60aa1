import { z } from 'zod';
import { PROVIDER_SLUGS } from '../../config/providers';

/**
 * Path parameters by name, shared by every route that names them (a declaration's `params` may say
 * more of its own). Routes read them as strings and answer 404 for an id that names nothing here, so
 * these describe what a client should send.
 */
export const PATH_PARAMS: Record<string, z.ZodType> = {
  key: z.string().describe('the chatbot public key (`pk_...`)'),
  conversation: z.uuid().describe('the conversation public id'),
  provider: z.enum(PROVIDER_SLUGS).describe('provider slug (an unknown slug is a 422 on `provider`)'),
  tag: z.string().regex(/^\d{1,9}$/).describe('tag id'),
  suggestion: z.string().regex(/^\d+$/).describe('the id suggest returned'),
  message_id: z.string().regex(/^\d+$/).describe('the id of an AI answer (the stream\'s `done` `message_id`, or a state read\'s message id)'),
  visitor: z.string().describe('visitor id from the live list; cut to 100 characters and trimmed'),
};
