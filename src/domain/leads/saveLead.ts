import { QueryTypes, type Transaction } from 'sequelize';
import { unprocessable } from '../../errors';
import { Conversation, Lead, type LeadStatus } from '../../models';
import { capturedContact, contactIn, hasContact } from './capturedContact';

export interface SavedLead {
  id: number;
  status: LeadStatus;
  source: string;
  /** False when the conversation already had its lead (one per conversation). */
  created: boolean;
}

type Source = Pick<Conversation, 'id' | 'companyId' | 'visitorName' | 'visitorEmail' | 'visitorPhone' | 'prechat'>;

/**
 * Saves the conversation's captured contact details as a lead (source `chat`, status `new`), inside
 * the conversation's write. A conversation has at most one lead: saving again refreshes its details
 * with what has been captured since (never blanking one) and keeps its status. 422 when nothing has
 * been captured.
 */
export async function saveLead(conversation: Source, transaction: Transaction): Promise<SavedLead> {
  const contact = capturedContact(conversation);
  if (!hasContact(contact)) throw unprocessable('No name, email or phone has been captured in this conversation yet.');

  // xmax is 0 only on a row this statement inserted: it tells a new lead from a refreshed one in one round trip.
  const [row] = await Conversation.sequelize!.query<{ id: number; status: LeadStatus; source: string; created: boolean }>(
    `INSERT INTO leads (company_id, conversation_id, name, email, phone, status, source)
     VALUES (:companyId, :conversationId, :name, :email, :phone, 'new', 'chat')
     ON CONFLICT (conversation_id) DO UPDATE SET
       name = COALESCE(EXCLUDED.name, leads.name),
       email = COALESCE(EXCLUDED.email, leads.email),
       phone = COALESCE(EXCLUDED.phone, leads.phone),
       updated_at = now()
     RETURNING id, status, source, (xmax = 0) AS created`,
    { type: QueryTypes.SELECT, replacements: { companyId: conversation.companyId, conversationId: conversation.id, ...contact }, transaction },
  );
  if (!row) throw new Error('lead upsert returned no row');
  return { id: Number(row.id), status: row.status, source: row.source, created: row.created };
}

/**
 * The chatbot's `auto_actions`: a visitor message that carries an email address or phone number saves
 * the conversation's lead by itself, with what the conversation captured first and the message's
 * details where it has none. Null, and nothing written, when the message carries neither.
 */
export async function saveLeadFromMessage(conversation: Source, text: string, transaction: Transaction): Promise<SavedLead | null> {
  const found = contactIn(text);
  if (!found.email && !found.phone) return null;
  const { id, companyId, visitorName, visitorEmail, visitorPhone, prechat } = conversation;
  return saveLead({ id, companyId, visitorName, prechat, visitorEmail: visitorEmail || found.email, visitorPhone: visitorPhone || found.phone }, transaction);
}

/** The conversation's lead as stored, read inside the write that saved it (for `lead.created`). */
export async function leadOf(id: number, transaction: Transaction): Promise<Lead> {
  const lead = await Lead.findByPk(id, { transaction });
  if (!lead) throw new Error(`lead ${id} vanished inside its own write`);
  return lead;
}
