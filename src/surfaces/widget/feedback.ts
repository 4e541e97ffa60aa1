import { z } from 'zod';
import { findWidgetChatbot } from '../../domain/chatbots/findChatbot';
import { conversationOfAnswer, MESSAGE_RATINGS } from '../../domain/conversations/answerRatings';
import { visitorId } from '../../http/visitorFields';
import { endpoint } from '../endpoint';
import { BLOCKED, perIp, SAMPLE_VISITOR } from './schemas';

export const feedbackBody = z.object({
  visitor_id: visitorId,
  rating: z.enum(MESSAGE_RATINGS),
  comment: z.string().trim().max(1000).optional(),
});

/** The visitor tells the AI whether an answer helped (docs/api.md "Answer feedback"). */
export const feedbackEndpoints = [
  endpoint({
    surface: 'widget',
    auth: 'none',
    method: 'post',
    path: '/widget/{key}/messages/{message_id}/feedback',
    summary: 'Rate an AI answer: thumbs up or down (extension)',
    description:
      'Only AI answers (`role` assistant) of the visitor’s own conversations on this chatbot can be rated; a repeat replaces the rating (and the comment). Agents see it as `rating` on the thread’s messages (`conversation.updated` goes out); portal analytics count it in `ratings_up` / `ratings_down`.',
    limit: perIp('widget-feedback', 60),
    body: { schema: feedbackBody, examples: [{ visitor_id: SAMPLE_VISITOR, rating: 'up' }, { visitor_id: SAMPLE_VISITOR, rating: 'down', comment: 'It did not answer my question.' }] },
    responses: {
      200: { description: 'Stored.', json: z.object({ ok: z.literal(true) }) },
      403: BLOCKED,
      404: 'No active chatbot has that key, or the message is not an AI answer in one of this visitor’s conversations on this chatbot.',
    },
    handler: async ({ actors, body: parseBody }, req, res) => {
      const chatbot = await findWidgetChatbot(req.params.key);
      const body = parseBody();
      const owner = { chatbotId: chatbot.id, visitorKey: body.visitor_id.trim() };
      const conversationId = await conversationOfAnswer(owner, req.params.message_id);
      const rating = { messageId: Number(req.params.message_id), rating: body.rating, comment: body.comment || null };
      res.json(await actors.ask('conversation', conversationId, { type: 'rateAnswer', ...owner, ...rating }));
    },
  }),
];
