import { isDeepStrictEqual } from 'node:util';
import type { InferAttributes } from 'sequelize';
import type { FencedStatement } from '../cluster/fences';
import { Conversation, type Message } from '../../models';
import { queueDeliveries } from '../../domain/webhooks/outbox';

type Columns = Partial<InferAttributes<Conversation>>;

/** A new line's own columns; its id was taken from the sequence beforehand (it is in the outbox event's data). */
export type NewLine = Pick<Message, 'id' | 'companyId' | 'conversationId' | 'role' | 'content' | 'clientId' | 'createdAt'>;

/** The event of the line for integrators (`message.created`), stored with the line: the outbox. */
export interface LineEvent {
  seq: number;
  data: unknown;
}

/**
 * The changes of `changes` that differ from the conversation as loaded (what Sequelize's `update`
 * would write), so the statement writes only those, as the model path does.
 */
export function changedColumns(conversation: Conversation, changes: Columns): Columns {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) if (!isDeepStrictEqual(conversation.get(key as keyof Columns), value)) changed[key] = value;
  return changed as Columns;
}

/**
 * One statement for a line added alone (a visitor's follow-up): the message inserted, the
 * conversation's columns updated, the integrator event stored and its deliveries queued, every write
 * reading the fence (`fencedStatement`). The result row carries the webhooks that got a delivery.
 */
export function lineStatement(line: NewLine, conversationId: number, columns: Columns, event: LineEvent): (current: string) => FencedStatement {
  return (current) => {
    const bind: unknown[] = [];
    // The fence takes $1 and $2.
    const param = (value: unknown, cast = '') => `$${bind.push(value) + 2}${cast}`;
    const message = `INSERT INTO messages (id, company_id, conversation_id, role, content, client_id, created_at)
       SELECT ${param(line.id, '::bigint')}, ${param(line.companyId, '::int')}, ${param(line.conversationId, '::bigint')}, ${param(line.role, '::text')}, ${param(line.content, '::text')}, ${param(line.clientId, '::text')}, ${param(line.createdAt, '::timestamptz')}
       FROM ${current}`;
    const update = `UPDATE conversations SET ${assignments(columns, param)}
       WHERE id = ${param(conversationId, '::bigint')} AND EXISTS (SELECT 1 FROM ${current})`;
    // Typed where they are taken: a parameter used in several places must not be left to inference.
    const company = param(line.companyId, '::int');
    const conversation = param(conversationId, '::bigint');
    const stored = `INSERT INTO integration_events (company_id, conversation_id, seq, type, data)
       SELECT ${company}, ${conversation}, ${param(event.seq, '::bigint')}, 'message.created', ${param(JSON.stringify(event.data), '::json')}
       FROM ${current}
       RETURNING id, type, seq`;
    return {
      ctes: `line_added AS (${message}), conversation_updated AS (${update}), stored AS (${stored}), queued AS (${queueDeliveries('stored', company, conversation)})`,
      columns: 'ARRAY(SELECT DISTINCT webhook_id FROM queued) AS webhooks',
      bind,
    };
  };
}

/** `column = $n` for each attribute, by the model's column names; JSON columns bound as JSON text. */
function assignments(columns: Columns, param: (value: unknown, cast?: string) => string): string {
  const attributes = Conversation.getAttributes();
  return Object.entries(columns)
    .map(([key, value]) => {
      const attribute = attributes[key as keyof typeof attributes];
      if (!attribute) throw new Error(`conversations has no attribute ${key}`);
      const type = (attribute.type as { key?: string }).key;
      const json = type === 'JSONB' || type === 'JSON';
      return `"${attribute.field ?? key}" = ${json ? param(value === null ? null : JSON.stringify(value), `::${type!.toLowerCase()}`) : param(value)}`;
    })
    .join(', ');
}
