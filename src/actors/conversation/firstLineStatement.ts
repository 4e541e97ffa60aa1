import type { InferAttributes } from 'sequelize';
import type { FencedStatement } from '../cluster/fences';
import { Conversation, Message } from '../../models';
import { queueDeliveries, type OutboxEvent } from '../../domain/webhooks/outbox';
import { insertRow, type NewLine, type Param } from './lineStatement';

/**
 * One statement for a new conversation's first line: the conversation inserted with every column as
 * the general write leaves it (so the row in memory is the row stored, without reading it back), its
 * first line, and its integrator events (`conversation.created`, `message.created`) stored in order
 * with their deliveries queued, every write reading the fence (`fencedStatement`). Both ids were taken
 * from the sequences beforehand (they are in the events' data). The result row carries the webhooks
 * that got a delivery. The one-open-per-visitor index refuses the conversation's row as it refuses
 * the general write's insert (a unique violation, the whole statement undone).
 */
export function firstLineStatement(conversation: InferAttributes<Conversation>, line: NewLine, events: readonly OutboxEvent[]): (current: string) => FencedStatement {
  return (current) => {
    const bind: unknown[] = [];
    // The fence takes $1 and $2.
    const param: Param = (value, cast = '') => `$${bind.push(value) + 2}${cast}`;
    const created = insertRow('conversations', Conversation.getAttributes(), conversation, current, param);
    const message = insertRow('messages', Message.getAttributes(), line, current, param);
    const company = param(conversation.companyId, '::int');
    const conversationId = param(conversation.id, '::bigint');
    // As `recordEvents` stores a write's events: one row each, in the order given.
    const stored = `INSERT INTO integration_events (company_id, conversation_id, seq, type, data)
       SELECT ${company}, ${conversationId}, item.seq, item.type, item.data
       FROM ${current}, json_to_recordset(${param(JSON.stringify(events), '::json')}) AS item(seq bigint, type text, data json)
       RETURNING id, type, seq`;
    return {
      ctes: `conversation_added AS (${created}), line_added AS (${message}), stored AS (${stored}), queued AS (${queueDeliveries('stored', company, conversationId)})`,
      columns: 'ARRAY(SELECT DISTINCT webhook_id FROM queued) AS webhooks',
      bind,
    };
  };
}
