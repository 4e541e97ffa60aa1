import { QueryTypes } from 'sequelize';
import { PushSubscription, type User } from '../../models';

export interface SubscriptionInput {
  endpoint: string;
  p256dh: string;
  auth: string;
  /** Absent keeps the name the device was saved with; null clears it. */
  deviceName?: string | null;
}

export interface SavedSubscription {
  id: number;
  endpoint: string;
  deviceName: string | null;
  /** False when the endpoint was already known and its record was updated. */
  created: boolean;
}

type Subscriber = Pick<User, 'id' | 'companyId'>;

/**
 * Saves a device's push endpoint for the caller, one record per endpoint. An endpoint already saved,
 * even by another user or workspace, moves to the caller: a browser or phone belongs to whoever
 * subscribed on it last, and nobody else should keep receiving its notifications. One statement, so
 * two devices racing on the same endpoint cannot create two records.
 */
export async function savePushSubscription(user: Subscriber, input: SubscriptionInput): Promise<SavedSubscription> {
  const [row] = await PushSubscription.sequelize!.query<{ id: number; endpoint: string; device_name: string | null; created: boolean }>(
    `INSERT INTO push_subscriptions (company_id, user_id, endpoint, p256dh, auth, device_name)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (endpoint) DO UPDATE SET
       company_id = EXCLUDED.company_id,
       user_id = EXCLUDED.user_id,
       p256dh = EXCLUDED.p256dh,
       auth = EXCLUDED.auth,
       device_name = CASE WHEN $7::boolean THEN push_subscriptions.device_name ELSE EXCLUDED.device_name END,
       updated_at = now()
     RETURNING id, endpoint, device_name, (xmax = 0) AS created`,
    {
      bind: [user.companyId, user.id, input.endpoint, input.p256dh, input.auth, input.deviceName ?? null, input.deviceName === undefined],
      type: QueryTypes.SELECT,
    },
  );
  return { id: row!.id, endpoint: row!.endpoint, deviceName: row!.device_name, created: row!.created };
}

/** Forgets the caller's own record of this endpoint; true when there was one. Another user's record is left alone. */
export async function removePushSubscription(user: Subscriber, endpoint: string): Promise<boolean> {
  return (await PushSubscription.destroy({ where: { endpoint, userId: user.id, companyId: user.companyId } })) > 0;
}
