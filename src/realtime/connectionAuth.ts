import type { Logger } from 'pino';
import { z } from 'zod';
import { isDatabaseUnavailable, warnDatabaseUnavailable } from '../db/unavailable';
import { DATABASE_RETRY_AFTER_SECONDS, databaseUnavailable } from '../errors';
import { Chatbot, Company, Conversation } from '../models';
import { resolveToken } from '../domain/accounts/tokens';
import type { RealtimeSocket, SocketIdentity } from './events';

/** A refused connection: the client sees `message` and `data` (`code`, and `retry_after` seconds when trying again later helps) on its connect_error. */
class Refused extends Error {
  readonly data: { code: string; retry_after?: number };
  constructor(code: 'unauthenticated' | 'forbidden' | 'database_unavailable', message: string, retryAfter?: number) {
    super(message);
    this.data = { code, ...(retryAfter !== undefined && { retry_after: retryAfter }) };
  }
}

const agentAuth = z.object({ token: z.string().min(1).max(200) });
const widgetAuth = z.object({
  key: z.string().min(1).max(64),
  visitor_id: z.string().min(1).max(100),
  conversation_id: z.uuid(),
});

type Next = (error?: Error) => void;

/**
 * `io.use` middleware: an agent app brings `{token}` (an `agent` token, checked like the HTTP surface
 * does), the widget brings `{key, visitor_id, conversation_id}` for its own conversation. Anything else is refused.
 */
export function connectionAuth(logger: Logger) {
  return (socket: RealtimeSocket, next: Next): void => {
    identify(socket.handshake.auth).then(
      (identity) => {
        socket.data = identity;
        next();
      },
      (error: unknown) => {
        if (error instanceof Refused) return next(error);
        // Not the client's fault, and not a reason for an app to drop its token: it should connect again shortly.
        if (isDatabaseUnavailable(error)) {
          warnDatabaseUnavailable(logger, error, 'realtime connection auth');
          return next(new Refused('database_unavailable', databaseUnavailable().message, DATABASE_RETRY_AFTER_SECONDS));
        }
        logger.error({ err: error }, 'realtime connection auth failed');
        next(new Refused('unauthenticated', 'The connection could not be authenticated. Try again.'));
      },
    );
  };
}

async function identify(auth: unknown): Promise<SocketIdentity> {
  const agent = agentAuth.safeParse(auth);
  if (agent.success) return identifyAgent(agent.data.token);
  const widget = widgetAuth.safeParse(auth);
  if (widget.success) return identifyWidget(widget.data.key, widget.data.visitor_id, widget.data.conversation_id);
  throw new Refused('unauthenticated', 'Unauthenticated.');
}

async function identifyAgent(raw: string): Promise<SocketIdentity> {
  const token = await resolveToken(raw);
  if (!token) throw new Refused('unauthenticated', 'Unauthenticated.');
  if (token.ability !== 'agent') throw new Refused('forbidden', 'This token cannot be used for realtime; use an agent token.');
  if (token.user.suspendedAt) throw new Refused('forbidden', 'This account is suspended.');
  if (token.user.company.suspendedAt) throw new Refused('forbidden', 'This workspace is suspended.');
  return { kind: 'agent', userId: token.user.id, companyId: token.user.companyId, tokenId: token.id, expiresAt: token.expiresAt.getTime() };
}

async function identifyWidget(key: string, visitorId: string, conversationId: string): Promise<SocketIdentity> {
  const chatbot = await Chatbot.findOne({
    where: { publicKey: key },
    attributes: ['id', 'companyId', 'isActive'],
    include: [{ model: Company, as: 'company', attributes: ['id', 'suspendedAt'] }],
  });
  if (!chatbot?.isActive || chatbot.company?.suspendedAt) throw new Refused('unauthenticated', 'This chatbot is not available.');
  // A wrong visitor and a missing conversation read the same, so ids cannot be probed.
  const conversation = await Conversation.findOne({
    where: { publicId: conversationId, chatbotId: chatbot.id, visitorKey: visitorId },
    attributes: ['id'],
  });
  if (!conversation) throw new Refused('forbidden', 'This conversation is not available to this visitor.');
  return { kind: 'widget', companyId: chatbot.companyId, chatbotId: chatbot.id, conversationId };
}
