import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../context';
import { Webhook } from '../../models';
import type { DeliveryChain } from './jobs';

/** How often a job-running process looks for deliveries that are due. */
export const SWEEP_INTERVAL_MS = 5_000;

/** Chains started per sweep, at most; the next sweep takes the rest. */
const SWEEP_BATCH = 1_000;

/**
 * The chains whose oldest open delivery is due now and unclaimed: retries whose time came, chains whose
 * start was lost (a queue that was down at commit, a job that finished just as a new event arrived),
 * and claims left by a sender that died.
 */
export async function dueChains(limit = SWEEP_BATCH): Promise<DeliveryChain[]> {
  const rows = await Webhook.sequelize!.query<DeliveryChain>(
    `WITH due AS (
       SELECT DISTINCT webhook_id, conversation_id FROM webhook_deliveries
       WHERE status IN ('pending', 'failed') AND next_attempt_at <= now() AND conversation_id IS NOT NULL
       LIMIT :limit
     )
     SELECT due.webhook_id AS "webhookId", due.conversation_id AS "conversationId"
     FROM due
     JOIN webhooks w ON w.id = due.webhook_id AND w.active
     CROSS JOIN LATERAL (
       SELECT next_attempt_at, leased_until FROM webhook_deliveries d
       WHERE d.webhook_id = due.webhook_id AND d.conversation_id = due.conversation_id AND d.status IN ('pending', 'failed')
       ORDER BY d.seq, d.id LIMIT 1
     ) head
     WHERE head.next_attempt_at <= now() AND (head.leased_until IS NULL OR head.leased_until < now())`,
    { type: QueryTypes.SELECT, replacements: { limit } },
  );
  return rows.map((row) => ({ webhookId: Number(row.webhookId), conversationId: Number(row.conversationId) }));
}

/**
 * Runs in every process that runs jobs (the worker; the web process in single-node mode): every
 * interval, and once at start, the due chains are queued. Job ids make a chain queued twice (by two
 * workers, or beside its write's own start) one job. The schedule lives in the database
 * (`next_attempt_at`), so a restart loses no retry, and a test moves a retry by moving that column.
 */
export function startDeliverySweep(ctx: AppContext, intervalMs = SWEEP_INTERVAL_MS): { close(): Promise<void> } {
  let running: Promise<void> | undefined;
  let closed = false;
  const sweep = () => {
    if (running || closed) return;
    running = (async () => {
      try {
        for (const chain of await dueChains()) await ctx.jobs.enqueue('webhook-deliver', chain);
      } catch (error) {
        ctx.logger.warn({ err: error }, 'webhook sweep failed; trying again at the next interval');
      } finally {
        running = undefined;
      }
    })();
  };
  const timer = setInterval(sweep, intervalMs);
  timer.unref();
  sweep();
  return {
    async close() {
      closed = true;
      clearInterval(timer);
      await running;
    },
  };
}
