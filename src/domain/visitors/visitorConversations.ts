import { QueryTypes, type Sequelize } from 'sequelize';

export interface VisitorOnChatbot {
  companyId: number;
  chatbotId: number;
  visitorKey: string;
}

/** Whether the conversation (by public id) is this visitor's on this chatbot: the widget's proof of ownership. */
export async function ownsConversation(sequelize: Sequelize, owner: VisitorOnChatbot, publicId: string): Promise<boolean> {
  const rows = await sequelize.query(
    'SELECT 1 FROM conversations WHERE public_id = $1 AND chatbot_id = $2 AND visitor_key = $3 AND company_id = $4',
    { bind: [publicId, owner.chatbotId, owner.visitorKey, owner.companyId], type: QueryTypes.SELECT },
  );
  return rows.length > 0;
}

/** The visitor's newest conversation on this chatbot that is not closed, by `conversations_by_visitor`. */
export async function latestOpenConversation(sequelize: Sequelize, owner: VisitorOnChatbot): Promise<string | null> {
  const [row] = await sequelize.query<{ public_id: string }>(
    `SELECT public_id FROM conversations
      WHERE chatbot_id = $1 AND visitor_key = $2 AND company_id = $3 AND status <> 'closed'
      ORDER BY created_at DESC, id DESC LIMIT 1`,
    { bind: [owner.chatbotId, owner.visitorKey, owner.companyId], type: QueryTypes.SELECT },
  );
  return row?.public_id ?? null;
}
