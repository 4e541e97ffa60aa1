import type { JobKinds } from '../../jobs/definitions';

/** A webhook with undelivered events of a conversation: what one `webhook-deliver` job works through. */
export interface DeliveryChain {
  webhookId: number;
  conversationId: number;
}

declare module '../../jobs/definitions' {
  interface JobPayloads {
    /** Delivers, in `seq` order, the due events of one conversation to one webhook. */
    'webhook-deliver': DeliveryChain;
  }
}

export const WEBHOOK_JOB_KINDS: JobKinds<'webhook-deliver'> = {
  // The job only walks the chain: each delivery's attempts and retry times live on its row, so a job
  // that fails (the database away) is retried briefly and the sweep picks up whatever is left.
  'webhook-deliver': {
    policy: { attempts: 3, backoffMs: 1_000, concurrency: 8 },
    idOf: ({ webhookId, conversationId }) => `webhook-deliver-${webhookId}-${conversationId}`,
  },
};
