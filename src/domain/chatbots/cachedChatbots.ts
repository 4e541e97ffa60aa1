import type { AppContext } from '../../context';
import { Chatbot, Company } from '../../models';
import { findWidgetChatbot } from './findChatbot';
import { SettingsCache } from './settingsCache';

type Ctx = Pick<AppContext, 'redis' | 'config'>;

const widgetChatbots = new SettingsCache((publicKey: string) => findWidgetChatbot(publicKey));

/**
 * `findWidgetChatbot` without its query while nothing changed (SettingsCache): the stream route's
 * chatbot. The copy is shared: read it, never change it.
 */
export const widgetChatbotOf = (ctx: Ctx, publicKey: string): Promise<Chatbot & { company: Company }> => widgetChatbots.get(ctx, publicKey);

/**
 * `widgetChatbotOf` with the settings epoch it was checked against (SettingsCache.read): the stream
 * route hands it to the turn, which then checks its own copies without reading the epoch again.
 */
export const widgetChatbotRead = (ctx: Ctx, publicKey: string): Promise<{ value: Chatbot & { company: Company }; epoch: string | undefined }> => widgetChatbots.read(ctx, publicKey);

const storedSettings = new SettingsCache((chatbotId: number) =>
  Chatbot.findByPk(chatbotId, { attributes: ['id', 'branding'], include: [{ model: Company, as: 'company', attributes: ['id', 'settings'] }] }),
);

/**
 * A chatbot's stored flags (`branding`) with its workspace's `settings`, as stored now (SettingsCache:
 * a write on any node is seen by the next read); null when the chatbot is gone. Shared: read only.
 * `epochRead`: the settings epoch this request already read (`widgetChatbotRead`), checked instead of reading it again.
 */
export const storedSettingsOf = (ctx: Ctx, chatbotId: number, epochRead?: string): Promise<Chatbot | null> => storedSettings.get(ctx, chatbotId, epochRead);
