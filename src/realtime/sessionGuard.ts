import type { Logger } from 'pino';
import { DedicatedSession } from '../db/dedicatedSession';
import { ACCESS_CHANNEL, parseAccessChange, type AccessChange } from '../domain/accounts/accessChanges';
import { tokensStillValid } from '../domain/accounts/tokens';
import type { RealtimeServer, RealtimeSocket } from './events';

// Notifications close a revoked session's sockets at once; this look at every socket is the net for
// the ones missed (the listener's connection down at the time), and costs one query per node a minute.
const SWEEP_MS = 60_000;
// setTimeout's longest delay (about 24.8 days); tokens live 30, so a far expiry is re-armed.
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface SessionGuard {
  /** Whether an agent socket's token still lets it in (asked again on every subscribe); widget sockets always may. */
  stillValid(socket: RealtimeSocket): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Realtime sockets follow their token: an agent socket is closed when its token expires, is revoked
 * (a logout ends its whole family), or its user or workspace is suspended, on whichever node it is;
 * a widget socket when its workspace is suspended. The server's disconnect reaches the client as
 * `io server disconnect`, which Socket.IO clients do not retry on their own.
 */
export async function guardSessions(io: RealtimeServer, databaseUrl: string, logger: Logger): Promise<SessionGuard> {
  const connected = () => [...io.of('/').sockets.values()];

  const recheck = async (sockets: RealtimeSocket[]): Promise<void> => {
    const tokenIds = new Set(sockets.flatMap(({ data }) => (data.kind === 'agent' ? [data.tokenId] : [])));
    if (tokenIds.size === 0) return;
    const valid = await tokensStillValid([...tokenIds]);
    for (const socket of sockets) if (socket.data.kind === 'agent' && !valid.has(socket.data.tokenId)) socket.disconnect(true);
  };
  const recheckLogged = (sockets: RealtimeSocket[]) =>
    void recheck(sockets).catch((error: unknown) => logger.warn({ err: error }, 'could not check realtime sessions; checking again within a minute'));

  const announced = (payload: string | undefined): void => {
    const change = parseAccessChange(payload);
    if (!change) return;
    const affected = connected().filter((socket) => concerns(change, socket));
    // Sent only on suspension, after it committed: a widget has nothing else to check.
    for (const socket of affected) if (socket.data.kind === 'widget') socket.disconnect(true);
    recheckLogged(affected);
  };
  const listener = await DedicatedSession.open({
    url: databaseUrl,
    purpose: 'access listener',
    logger: logger.child({ component: 'session-guard' }),
    prepare: async (client) => {
      client.on('notification', (message) => announced(message.payload));
      await client.query(`LISTEN ${ACCESS_CHANNEL}`);
    },
  });
  // Announcements made while the connection was down are lost: look at every socket instead.
  listener.on('reopened', () => recheckLogged(connected()));
  const sweep = setInterval(() => recheckLogged(connected()), SWEEP_MS).unref();
  io.on('connection', closeAtExpiry);

  return {
    stillValid: async (socket) => socket.data.kind !== 'agent' || (await tokensStillValid([socket.data.tokenId])).has(socket.data.tokenId),
    close: async () => {
      clearInterval(sweep);
      await listener.close();
    },
  };
}

function concerns(change: AccessChange, socket: RealtimeSocket): boolean {
  if ('company' in change) return socket.data.companyId === change.company;
  return socket.data.kind === 'agent' && socket.data.userId === change.user;
}

function closeAtExpiry(socket: RealtimeSocket): void {
  const identity = socket.data;
  if (identity.kind !== 'agent') return;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = identity.expiresAt - Date.now();
    if (left <= 0) return void socket.disconnect(true);
    timer = setTimeout(arm, Math.min(left, LONGEST_TIMER_MS)).unref();
  };
  arm();
  socket.once('disconnect', () => clearTimeout(timer));
}
