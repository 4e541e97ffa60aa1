import { Op } from 'sequelize';
import type { AppContext } from '../../context';
import { PushSubscription } from '../../models';
import { ttlLeft } from './delivery';
import type { PushFanoutJob } from './jobs';
import { notificationFor } from './payload';
import { willingRecipients } from './recipients';
import type { PushRuntime } from './runtime';
import { throttleAllows } from './throttle';

/**
 * One event to the devices that should hear of it: the recipients docs/push.md names, each agent's
 * preferences at this moment, the `visitor_message` throttle, then one delivery job per device. Job
 * ids make a retried fan-out queue nothing twice. Answers how many deliveries were queued.
 */
export async function fanOutPush(ctx: AppContext, job: PushFanoutJob, runtime: PushRuntime): Promise<number> {
  const log = ctx.logger.child({ push: job.key });
  if (!ctx.config.vapid) {
    // The web node that raised it has keys: this process was started without them.
    log.warn('push event dropped: VAPID keys are not configured in this process');
    return 0;
  }
  const now = runtime.now();
  if (ttlLeft(job.event, job.raisedAt, now.getTime()) === 0) {
    log.info('push event expired before it could be sent');
    return 0;
  }
  const { allowed, preferences, recipients } = await willingRecipients(job, now);
  if (allowed.length === 0) return 0;

  const devices = await PushSubscription.findAll({
    attributes: ['id', 'userId'],
    where: { companyId: job.companyId, userId: { [Op.in]: allowed.map((user) => user.id) } },
    order: [['id', 'ASC']],
  });
  let queued = 0;
  for (const user of allowed) {
    const own = devices.filter((device) => device.userId === user.id);
    if (own.length === 0 || !(await throttleAllows(runtime.throttle, job, user.id, runtime.throttleWindowMs))) continue;
    const notification = notificationFor(job, preferences.get(user.id)!, ctx.config.appUrl);
    for (const device of own) {
      await ctx.jobs.enqueue('push-deliver', {
        key: job.key,
        event: job.event,
        companyId: job.companyId,
        userId: user.id,
        subscriptionId: device.id,
        raisedAt: job.raisedAt,
        notification,
      });
      queued += 1;
    }
  }
  log.debug({ event: job.event, recipients: recipients.length, allowed: allowed.length, queued }, 'push fanned out');
  return queued;
}
