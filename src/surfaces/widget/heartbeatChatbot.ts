import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { settingsOf } from '../../domain/chatbots/flags';
import { AppError } from '../../errors';

/** What a heartbeat needs of its chatbot. */
export interface HeartbeatChatbot {
  id: number;
  companyId: number;
  /** The chatbot's `behavior_tracking`: whether beats record the page journey. */
  trackBehavior: boolean;
}

/** How long an answer (found or 404) is reused: a chatbot switched off stops taking heartbeats, and a changed setting applies, within this. */
const TTL_MS = 5_000;
/** Past this many keys the cache starts over: a flood of made-up keys must not grow memory. */
const MAX_KEYS = 10_000;

type Entry = { at: number; found: Promise<HeartbeatChatbot> };
const entries = new Map<string, Entry>();

/**
 * `findWidgetChatbot` for heartbeats, remembered per key for a few seconds. Every open page beats
 * every `poll_seconds`, so at thousands of beats a second the same few keys are looked up again and
 * again; one Postgres round trip (and a Sequelize model with its workspace) per key per 5 s instead
 * of per beat. A 404 is remembered too; concurrent lookups of one key share one query.
 */
export function heartbeatChatbot(publicKey: string, now = Date.now()): Promise<HeartbeatChatbot> {
  const cached = entries.get(publicKey);
  if (cached && now - cached.at < TTL_MS) return cached.found;
  if (entries.size >= MAX_KEYS) entries.clear();
  const found = findWidgetChatbot(publicKey).then((chatbot) => ({ id: chatbot.id, companyId: chatbot.companyId, trackBehavior: settingsOf(chatbot).behavior_tracking }));
  const entry = { at: now, found };
  entries.set(publicKey, entry);
  // Only a definite answer is kept: a failed lookup (the database down) is not a 404 to remember.
  found.catch((error: unknown) => {
    if (!(error instanceof AppError && error.status === 404) && entries.get(publicKey) === entry) entries.delete(publicKey);
  });
  return found;
}
