import { z } from 'zod';
import { credentialsBody } from '../../http/credentials';
import { updateChatbotBody } from '../../surfaces/portal/chatbots';
import { saveKeyBody } from '../../surfaces/portal/keys';
import { createKnowledgeBody } from '../../surfaces/portal/knowledge';
import { brand, portalCompany, portalLimits, portalUsage, portalUser } from '../responses/accounts';
import { portalChatbotDetail, portalChatbotListItem, provider, publicKey, updatedPortalChatbot } from '../responses/chatbots';
import { messageBody } from '../responses/common';
import { count, isoOffset } from '../responses/formats';
import { portalKnowledge } from '../responses/knowledge';
import type { Endpoint } from '../registry';

const portal = { surface: 'portal', auth: 'portal' } as const;

const keyStatus = z.object({ provider, label: z.string(), last_four: z.string().nullable(), configured: z.boolean() });

export const PORTAL_ENDPOINTS: Endpoint[] = [
  {
    surface: 'portal',
    auth: 'none',
    method: 'post',
    path: '/api/portal/login',
    summary: 'Sign in as an owner or admin of a portal-enabled workspace',
    description:
      'Every refusal reads "These credentials do not match our records.". Shares the login lockout (5 failures for one email in 15 minutes lock it for 15 minutes) with the agent login. The route limit counts before validation.',
    limit: { points: 10, seconds: 60, by: 'ip' },
    body: { schema: credentialsBody, examples: [{ email: 'owner@example.com', password: 'correct horse battery staple' }] },
    responses: {
      200: { description: 'A `portal` token (30 days) and who it belongs to.', json: z.object({ token: z.string(), user: portalUser, company: portalCompany, brand }) },
      401: 'Wrong password or unknown address.',
      403: 'Right password, but the portal is off, the workspace or user is suspended, or the role is not owner/admin (worded like a wrong password).',
      429: 'Route limit, or the address is locked out (`Retry-After`).',
    },
  },
  {
    ...portal,
    method: 'post',
    path: '/api/portal/logout',
    summary: 'Revoke the calling token',
    responses: { 200: { description: 'Signed out.', json: messageBody } },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/me',
    summary: 'The signed-in user, workspace, brand, plan limits and this month’s usage',
    responses: { 200: { description: 'The session.', json: z.object({ user: portalUser, company: portalCompany, brand, limits: portalLimits, usage: portalUsage }) } },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots',
    summary: "The workspace's chatbots, in creation order",
    responses: { 200: { description: 'Every chatbot with its counts.', json: z.object({ data: z.array(portalChatbotListItem) }) } },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots/{key}',
    summary: 'One chatbot with its settings and branding',
    responses: { 200: { description: 'The chatbot.', json: z.object({ data: portalChatbotDetail }) } },
  },
  {
    ...portal,
    method: 'put',
    path: '/api/portal/chatbots/{key}',
    summary: "Update a chatbot's settings and four branding fields",
    description: '`name` is required on every call. Omitted fields keep their value; branding fields are merged over the stored ones; an empty `welcome_message` resets it to the default greeting. `provider`, `model` and unknown fields are ignored.',
    ability: 'manage-chatbots',
    body: {
      schema: updateChatbotBody,
      examples: [
        { name: 'Support', persona: 'Friendly and brief.', welcome_message: 'Hello!', is_active: true, primary_color: '#2563eb', launcher_text: 'Chat', position: 'left', theme: 'ocean' },
      ],
    },
    responses: { 200: { description: 'The chatbot, with the reduced branding object.', json: z.object({ data: updatedPortalChatbot }) } },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/chatbots/{key}/knowledge',
    summary: "The chatbot's top-level knowledge sources, newest first",
    responses: { 200: { description: 'The sources (crawled pages are not listed).', json: z.object({ data: z.array(portalKnowledge) }) } },
  },
  {
    ...portal,
    method: 'post',
    path: '/api/portal/chatbots/{key}/knowledge',
    summary: 'Add a knowledge source; it is indexed in the background',
    description: '`type` picks the fields: `text` (content), `qa` (question, answer) or `url` (source_url, crawled: same origin, robots.txt obeyed). `title` defaults by type.',
    ability: 'manage-content',
    body: {
      schema: createKnowledgeBody,
      large: true,
      examples: [
        { type: 'text', title: 'Shipping', content: 'We ship within two working days.' },
        { type: 'qa', question: 'Can I pay by invoice?', answer: 'Yes, on the Pro plan.' },
        { type: 'url', source_url: 'https://example.com/help' },
      ],
    },
    responses: { 201: { description: 'The source, status `pending`.', json: z.object({ data: portalKnowledge }) } },
  },
  {
    ...portal,
    method: 'delete',
    path: '/api/portal/chatbots/{key}/knowledge/{source}',
    summary: 'Delete a source, its crawled pages and everything indexed from it',
    description: "A crawled page's id, a non-numeric id, a repeat or another chatbot's source is a 404.",
    ability: 'manage-content',
    responses: { 200: { description: 'Deleted.', json: messageBody } },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/keys',
    summary: 'Provider key status for every provider (a stored key is never returned)',
    responses: { 200: { description: 'The eight providers in a fixed order.', json: z.object({ data: z.array(keyStatus) }) } },
  },
  {
    ...portal,
    method: 'put',
    path: '/api/portal/keys/{provider}',
    summary: "Store the workspace's key for a provider (encrypted, never returned)",
    ability: 'manage-workspace',
    body: { schema: saveKeyBody, examples: [{ api_key: 'sk-live-0123456789abcdef' }] },
    responses: {
      200: { description: 'Stored; only the last four characters come back.', json: z.object({ data: keyStatus.omit({ label: true }) }) },
      422: 'An unknown provider slug (`errors.provider`, checked before the body), or a blank or too long key.',
    },
    never: [404],
  },
  {
    ...portal,
    method: 'delete',
    path: '/api/portal/keys/{provider}',
    summary: "Remove the workspace's key for a provider (idempotent)",
    ability: 'manage-workspace',
    responses: { 200: { description: 'Says whether a key was removed.', json: messageBody }, 422: 'An unknown provider slug (`errors.provider`).' },
    never: [404],
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/analytics',
    summary: "This calendar month's analytics (UTC)",
    responses: {
      200: {
        description: 'Conversations, messages by author, tokens, cost (USD) and AI calls this month.',
        json: z.object({
          data: z.object({
            period: z.string().regex(/^\d{4}-\d{2}$/),
            since: isoOffset,
            conversations: count,
            messages: z.object({ ai_replies: count, human_replies: count, visitor_messages: count, total: count }),
            tokens: count,
            cost: z.number().min(0),
            messages_used: count,
          }),
        }),
      },
    },
  },
  {
    ...portal,
    method: 'get',
    path: '/api/portal/widget-snippet',
    summary: 'The embed script tag for the first active chatbot (else the newest)',
    responses: {
      200: { description: 'The snippet.', json: z.object({ data: z.object({ public_key: publicKey, snippet: z.string() }) }) },
      404: 'The workspace has no chatbot.',
    },
  },
];
