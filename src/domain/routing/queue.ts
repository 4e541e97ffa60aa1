import { QueryTypes, type Transaction } from 'sequelize';
import { ROLES, type RoleName } from '../../../config/roles';
import { Conversation, User } from '../../models';

// The queue is not a list kept anywhere: it is the workspace's waiting, unassigned conversations in
// the order they asked (handoff_requested_at, then id), read through migration 0011's partial index.
// So a node that dies takes nothing with it, and every router activation sees the same queue.
const WAITING = `company_id = :companyId AND handoff_state = 'handoff_pending' AND assigned_user_id IS NULL AND status <> 'closed'`;

export interface Waiting {
  publicId: string;
  /** The agent who let the accept timer lapse on it: offered to others first. */
  passedOverUserId: number | null;
}

/** The workspace's queue, first come first served. */
export async function waitingQueue(companyId: number): Promise<Waiting[]> {
  const rows = await Conversation.sequelize!.query<{ public_id: string; passed_over_user_id: number | null }>(
    `SELECT public_id, passed_over_user_id FROM conversations WHERE ${WAITING} ORDER BY handoff_requested_at, id`,
    { replacements: { companyId }, type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({ publicId: row.public_id, passedOverUserId: row.passed_over_user_id }));
}

/** 1 for the next in line; null when the conversation is not waiting unassigned. */
export async function queuePosition(conversation: Pick<Conversation, 'id' | 'companyId' | 'handoffState' | 'assignedUserId' | 'status' | 'handoffRequestedAt'>): Promise<number | null> {
  if (conversation.handoffState !== 'handoff_pending' || conversation.assignedUserId !== null || conversation.status === 'closed' || !conversation.handoffRequestedAt) return null;
  const [row] = await Conversation.sequelize!.query<{ ahead: string }>(
    `SELECT count(*) AS ahead FROM conversations WHERE ${WAITING} AND (handoff_requested_at, id) < (:at, :id)`,
    { replacements: { companyId: conversation.companyId, at: conversation.handoffRequestedAt, id: conversation.id }, type: QueryTypes.SELECT },
  );
  return Number(row?.ahead ?? 0) + 1;
}

/** Roles whose members handle conversations, and so may be given one. */
export const HANDLING_ROLES = (Object.keys(ROLES) as RoleName[]).filter((role) => (ROLES[role].abilities as readonly string[]).includes('handle-conversations'));

export interface RoutableAgent {
  id: number;
  status: 'online' | 'away';
  capacity: number;
  /** Conversations the agent holds now (status agent). */
  load: number;
  lastAssignedAt: Date | null;
}

/** Every agent of the workspace who could hold a conversation, with their load now. */
export async function routableAgents(companyId: number, workspaceCapacity: number): Promise<RoutableAgent[]> {
  const rows = await User.sequelize!.query<{ id: number; routing_status: 'online' | 'away'; capacity: number | null; last_assigned_at: Date | null; load: string }>(
    `SELECT u.id, u.routing_status, u.capacity, u.last_assigned_at,
            (SELECT count(*) FROM conversations c WHERE c.assigned_user_id = u.id AND c.status = 'agent') AS load
       FROM users u
      WHERE u.company_id = :companyId AND u.suspended_at IS NULL AND u.role IN (:roles)
      ORDER BY u.id`,
    { replacements: { companyId, roles: HANDLING_ROLES }, type: QueryTypes.SELECT },
  );
  return rows.map((row) => ({
    id: row.id,
    status: row.routing_status,
    capacity: row.capacity ?? workspaceCapacity,
    load: Number(row.load),
    lastAssignedAt: row.last_assigned_at ? new Date(row.last_assigned_at) : null,
  }));
}

/**
 * The agent with the fewest open conversations among those with room (ties: the longest since their
 * last assignment, never assigned first, then the lowest id). The one who let this conversation's
 * accept timer lapse is chosen only when nobody else has room.
 */
export function pickAgent(agents: readonly RoutableAgent[], passedOverUserId: number | null): RoutableAgent | undefined {
  const withRoom = agents.filter((agent) => agent.load < agent.capacity);
  const others = withRoom.filter((agent) => agent.id !== passedOverUserId);
  const pool = others.length ? others : withRoom;
  const since = (agent: RoutableAgent) => agent.lastAssignedAt?.getTime() ?? -Infinity;
  return [...pool].sort((a, b) => a.load - b.load || since(a) - since(b) || a.id - b.id)[0];
}

/**
 * Takes one of the agent's seats inside the assigning write: the agent's row is locked, so two
 * assignments to one agent (two workspaces' routers never share an agent, but a router that moved
 * nodes may overlap its predecessor for a moment) are counted one after the other, and the agent is
 * never given more than their capacity. False when they are full, away or suspended now.
 */
export async function claimSeat(userId: number, capacity: number, now: Date, transaction: Transaction): Promise<boolean> {
  const sequelize = User.sequelize!;
  const [user] = await sequelize.query<{ id: number }>(`SELECT id FROM users WHERE id = :userId AND routing_status = 'online' AND suspended_at IS NULL FOR UPDATE`, {
    replacements: { userId },
    type: QueryTypes.SELECT,
    transaction,
  });
  if (!user) return false;
  const [held] = await sequelize.query<{ load: string }>(`SELECT count(*) AS load FROM conversations WHERE assigned_user_id = :userId AND status = 'agent'`, {
    replacements: { userId },
    type: QueryTypes.SELECT,
    transaction,
  });
  if (Number(held?.load ?? 0) >= capacity) return false;
  await sequelize.query('UPDATE users SET last_assigned_at = :now WHERE id = :userId', { replacements: { userId, now }, transaction });
  return true;
}

/**
 * What the widget adds to a conversation's state in auto mode: `queue_position` (null when not
 * waiting). Nothing in manual mode, so the widget's answers there are as they always were.
 */
export async function queueField(conversation: Conversation, mode: 'manual' | 'auto'): Promise<{ queue_position?: number | null }> {
  return mode === 'auto' ? { queue_position: await queuePosition(conversation) } : {};
}
