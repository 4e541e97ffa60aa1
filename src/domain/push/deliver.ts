import { UnrecoverableError } from 'bullmq';
import { sendNotification, WebPushError } from 'web-push';
import type { AppContext } from '../../context';
import { RetryAfter } from '../../jobs/retryAfter';
import { AddressRefused, checkLiteralHost } from '../../net/outboundAddress';
import { PushSubscription } from '../../models';
import { DELIVERY, ttlLeft, type DeliveryOutcome } from './delivery';
import type { PushDeliveryJob } from './jobs';
import { retryAfterMs } from './retryAfterHeader';
import type { PushRuntime } from './runtime';

/**
 * Sends one notification to one device with web-push (RFC 8291 aes128gcm, VAPID-signed), with the TTL
 * left of the event's and the event's urgency. 429, 5xx and network failures throw to be retried (after
 * `Retry-After` when the push service sends one); 404/410 delete the subscription. Every attempt is
 * counted by outcome (`error` for a throw) in the process's metrics.
 */
export async function deliverPush(ctx: AppContext, job: PushDeliveryJob, runtime: PushRuntime): Promise<DeliveryOutcome> {
  let outcome: DeliveryOutcome;
  try {
    outcome = await attemptDelivery(ctx, job, runtime);
  } catch (error) {
    ctx.metrics.pushDelivery('error');
    throw error;
  }
  ctx.metrics.pushDelivery(outcome);
  return outcome;
}

async function attemptDelivery(ctx: AppContext, job: PushDeliveryJob, runtime: PushRuntime): Promise<DeliveryOutcome> {
  const vapid = ctx.config.vapid;
  if (!vapid) {
    ctx.logger.warn({ push: job.key }, 'push dropped: VAPID keys are not configured in this process');
    return 'unconfigured';
  }
  // The device must still belong to the agent the notification was shaped for.
  const device = await PushSubscription.findOne({ where: { id: job.subscriptionId, companyId: job.companyId, userId: job.userId } });
  if (!device) return 'gone';
  const log = ctx.logger.child({ push: job.key, subscription: device.id, service: originOf(device.endpoint) });
  const now = runtime.now().getTime();
  const ttl = ttlLeft(job.event, job.raisedAt, now);
  if (ttl === 0) {
    log.info('push expired before it could be delivered');
    return 'expired';
  }
  const unusable = unusableKeys(device);
  if (unusable) {
    log.warn({ reason: unusable }, 'push subscription keys are unusable; giving up');
    return 'refused';
  }
  try {
    // Node skips `lookup` for IP literals, so the agent's guard cannot see them: checked here.
    checkLiteralHost(new URL(device.endpoint).hostname, runtime.policy);
    await sendNotification({ endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } }, JSON.stringify(job.notification), {
      TTL: ttl,
      urgency: DELIVERY[job.event].urgency,
      vapidDetails: vapid,
      contentEncoding: 'aes128gcm',
      timeout: runtime.requestTimeoutMs,
      agent: runtime.agent,
    });
    log.debug({ event: job.event }, 'push delivered');
    return 'sent';
  } catch (error) {
    return failed(error, { device, ttl, now, log });
  }
}

interface Failure {
  device: PushSubscription;
  ttl: number;
  now: number;
  log: AppContext['logger'];
}

async function failed(error: unknown, { device, ttl, now, log }: Failure): Promise<DeliveryOutcome> {
  if (error instanceof AddressRefused) {
    // Push services are public; an endpoint aimed at a private address is a probe of our network, and
    // resolving it again on every event would only repeat the attempt: the record goes.
    await PushSubscription.destroy({ where: { id: device.id, endpoint: device.endpoint } });
    log.warn({ reason: error.message }, 'push endpoint refused by the outbound address policy; subscription removed');
    return 'refused';
  }
  if (!(error instanceof WebPushError)) {
    // A key that is no point on the curve fails encryption, and always will.
    if (codeOf(error)?.startsWith('ERR_CRYPTO')) throw new UnrecoverableError(`push subscription keys are unusable: ${messageOf(error)}`);
    throw error; // network failure or timeout: retried with backoff
  }
  const status = error.statusCode;
  if (status === 404 || status === 410) {
    await PushSubscription.destroy({ where: { id: device.id, endpoint: device.endpoint } });
    log.info({ status }, 'push subscription expired; removed');
    return 'gone';
  }
  if (status === 429 || status >= 500) {
    const wait = retryAfterMs(error.headers?.['retry-after'], now);
    if (wait === undefined) throw new Error(`push service answered ${status}`);
    if (wait >= ttl * 1000) {
      log.warn({ status, retryAfterMs: wait }, 'push service asks to wait past the notification TTL; giving up');
      return 'expired';
    }
    throw new RetryAfter(wait, `push service answered ${status}; retrying in ${wait} ms`);
  }
  log.warn({ status, body: String(error.body ?? '').slice(0, 200) }, 'push service refused the notification; giving up');
  return 'refused';
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The checks web-push makes before encrypting (RFC 8291: an uncompressed P-256 point and a 16-byte
 * secret), made here so a broken subscription is told apart from a network failure and not retried.
 */
function unusableKeys(device: PushSubscription): string | undefined {
  if (Buffer.from(device.p256dh, 'base64url').length !== 65) return 'p256dh is not a 65-byte P-256 public key';
  if (Buffer.from(device.auth, 'base64url').length < 16) return 'auth is shorter than 16 bytes';
  return undefined;
}

/** Endpoints carry device tokens: logs name only the push service. */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'invalid endpoint';
  }
}
