import { z } from 'zod';
import { count, id, isoOffset } from './formats';
import { named } from './named';

const status = z.enum(['pending', 'processing', 'ready', 'failed']);

export const v1Knowledge = named('V1Knowledge', z.object({ id, title: z.string(), type: z.enum(['text', 'qa']), status, chunk_count: count }));

export const portalKnowledge = named(
  'PortalKnowledge',
  z.object({ id, type: z.enum(['text', 'qa', 'url']), title: z.string(), source_url: z.string().nullable(), status, chunk_count: count, created_at: isoOffset }),
);
