import { Chatbot } from '../../models';
import { notFound } from '../../errors';

/** The chatbot a workspace embeds by default: the first active one, else the most recently created. */
export async function snippetChatbot(companyId: number): Promise<Chatbot> {
  const chatbot =
    (await Chatbot.findOne({ where: { companyId, isActive: true }, order: [['createdAt', 'ASC'], ['id', 'ASC']] })) ??
    (await Chatbot.findOne({ where: { companyId }, order: [['createdAt', 'DESC'], ['id', 'DESC']] }));
  if (!chatbot) throw notFound('Chatbot');
  return chatbot;
}

/** The embed snippet: a script tag loading `{base_url}/widget.js`, the public key in `data-key`, deferred. */
export function widgetSnippet(appUrl: string, publicKey: string): string {
  return `<script src="${appUrl}/widget.js" data-key="${publicKey}" defer></script>`;
}
