import { QueryTypes } from 'sequelize';
import { Chatbot } from '../../models';
import { departureMs } from './presence';

export interface LiveVisitorRow {
  id: string;
  chatbot: string;
  chatbot_id: number;
  page: string | null;
  title: string | null;
  referrer: string | null;
  country: string | null;
  device: string | null;
  browser: string | null;
  os: string | null;
  page_views: number;
  first_seen_at: Date;
  last_seen_at: Date;
  conversation_id: string | null;
}

/** Chatbots whose visitors agents may watch: active, with live visitors switched on in their branding. */
const WATCHED = `b.is_active AND COALESCE((b.branding->>'live_visitors')::boolean, false)`;

export async function liveVisitorsEnabled(companyId: number): Promise<boolean> {
  const [row] = await Chatbot.sequelize!.query(`SELECT 1 FROM chatbots b WHERE b.company_id = $1 AND ${WATCHED} LIMIT 1`, { bind: [companyId], type: QueryTypes.SELECT });
  return row !== undefined;
}

/**
 * Everyone on the workspace's sites now: visitors whose last heartbeat is within the departure window,
 * newest first, with their open conversation. Presence is what the visitor actors wrote behind (about a
 * second old at most), so the list never has to visit every actor of the cluster. `chatbot_id IS NOT NULL`
 * is what the join says already; written out, it lets Postgres use `visitors_live`, which is partial on
 * it (migration 0021).
 */
export async function listLiveVisitors(companyId: number, pollSeconds: number, limit: number): Promise<{ visitors: LiveVisitorRow[]; total: number }> {
  const rows = await Chatbot.sequelize!.query<LiveVisitorRow & { total: string }>(
    `SELECT v.visitor_key AS id, b.name AS chatbot, v.chatbot_id, v.page, v.title, v.referrer, v.country, v.device, v.browser, v.os,
            v.page_views, v.first_seen_at, v.last_seen_at,
            (SELECT c.public_id FROM conversations c
              WHERE c.chatbot_id = v.chatbot_id AND c.visitor_key = v.visitor_key AND c.company_id = v.company_id AND c.status <> 'closed'
              ORDER BY c.created_at DESC LIMIT 1) AS conversation_id,
            count(*) OVER () AS total
       FROM visitors v JOIN chatbots b ON b.id = v.chatbot_id
      WHERE v.company_id = $1 AND v.chatbot_id IS NOT NULL AND ${WATCHED} AND v.last_seen_at > now() - make_interval(secs => $2)
      ORDER BY v.last_seen_at DESC, v.id DESC
      LIMIT $3`,
    { bind: [companyId, departureMs(pollSeconds) / 1000, limit], type: QueryTypes.SELECT },
  );
  return { visitors: rows, total: Number(rows[0]?.total ?? 0) };
}
