import { strict as assert } from 'node:assert';
import { DEFAULT_BRANDING, DEFAULT_WELCOME_MESSAGE } from '../../src/domain/chatbots/branding';
import { Chatbot } from '../../src/models';
import { fakeLlm } from '../support/hooks';
import { get, request } from '../support/http';
import * as make from '../support/factories';
import { freshIp, portalTenant } from '../support/portal';
import { ask, newVisitor } from '../support/widget';

const LIST_FIELDS = ['conversations', 'is_active', 'knowledge_sources', 'model', 'name', 'provider', 'public_key', 'role'];
const DETAIL_FIELDS = [...LIST_FIELDS, 'branding', 'identity_required', 'instructions', 'persona', 'prechat', 'welcome_message'].sort();
const DEFAULT_PRECHAT = {
  enabled: false,
  greeting: 'Before we start, tell us a little about you.',
  fields: [
    { field: 'name', label: 'Name', type: 'text', required: true },
    { field: 'email', label: 'Email', type: 'email', required: true },
  ],
};

/** A value for every branding field, none of them the default. */
const EVERY_BRANDING_FIELD = {
  primary_color: '#123abc',
  launcher_text: 'Questions?',
  position: 'left',
  theme: 'sunset',
  logo_url: 'https://cdn.example.com/logo.png',
  avatar_url: 'https://cdn.example.com/bot.png',
  title: 'Acme help',
  subtitle: 'Answers in seconds',
  layout: 'expanded',
  launcher: 'tab',
  quick_replies: ['Pricing', 'Shipping'],
  agent_avatars: ['https://cdn.example.com/ann.png', 'https://cdn.example.com/bo.png'],
  composer_style: 'pill',
  sound: false,
  screen_share: true,
  copilot: !DEFAULT_BRANDING.copilot,
  auto_actions: true,
  copilot_use_profile: true,
  copilot_autostart: true,
  live_visitors: true,
  behavior_tracking: !DEFAULT_BRANDING.behavior_tracking,
  recommend_mode: 'on_request',
  language: 'ja',
  proactive: { enabled: true, message: 'Need a hand?', delay: 4, scroll: 30, exit_intent: true, url_contains: '/pricing', frequency: 'always' },
};

describe('portal: chatbots', () => {
  it('lists chatbots with counts of top-level knowledge sources and conversations', async () => {
    const { company, token } = await portalTenant();
    const first = await make.chatbot(company, 'Sales');
    const second = await make.chatbot(company, 'Support');
    await make.knowledgeSource(first, { type: 'url', status: 'ready' }).then((parent) => make.knowledgeSource(first, { parentId: parent.id }));
    await make.knowledgeSource(first, {});
    await make.conversation(first);
    await make.conversation(first);
    await make.conversation(first);
    await make.chatbot((await make.workspace()).company, 'Elsewhere');

    const reply = await get('/api/portal/chatbots', token);
    assert.equal(reply.status, 200);
    assert.equal(reply.body.data.length, 2);
    assert.deepEqual(Object.keys(reply.body.data[0]).sort(), LIST_FIELDS);
    assert.deepEqual(reply.body.data[0], {
      public_key: first.publicKey,
      name: 'Sales',
      role: 'Support assistant',
      provider: 'openai',
      model: 'gpt-4o-mini',
      is_active: true,
      knowledge_sources: 2,
      conversations: 3,
    });
    assert.deepEqual([reply.body.data[1].public_key, reply.body.data[1].knowledge_sources, reply.body.data[1].conversations], [second.publicKey, 0, 0]);
  });

  it('shows the detail with persona, instructions, welcome message and the full branding object', async () => {
    const { company, token } = await portalTenant();
    const bot = await make.chatbot(company);
    await bot.update({ persona: 'Cheerful', instructions: 'Be brief.', branding: { theme: 'ocean', proactive: { enabled: true } } });
    const reply = await get(`/api/portal/chatbots/${bot.publicKey}`, token);
    assert.equal(reply.status, 200);
    assert.deepEqual(Object.keys(reply.body.data).sort(), DETAIL_FIELDS);
    assert.equal(reply.body.data.persona, 'Cheerful');
    assert.equal(reply.body.data.instructions, 'Be brief.');
    assert.equal(reply.body.data.welcome_message, DEFAULT_WELCOME_MESSAGE);
    assert.deepEqual(reply.body.data.branding, { ...DEFAULT_BRANDING, theme: 'ocean', proactive: { ...DEFAULT_BRANDING.proactive, enabled: true } });
    assert.equal(reply.body.data.branding.language, 'auto');
    assert.deepEqual([reply.body.data.prechat, reply.body.data.identity_required], [DEFAULT_PRECHAT, false]);
  });

  it('keeps workspaces apart: another workspace\'s key is 404 on every chatbot route', async () => {
    const { token } = await portalTenant();
    const foreign = await make.chatbot((await make.workspace()).company);
    for (const [method, path, body] of [
      ['GET', `/api/portal/chatbots/${foreign.publicKey}`, undefined],
      ['PUT', `/api/portal/chatbots/${foreign.publicKey}`, { name: 'Mine now' }],
      ['GET', `/api/portal/chatbots/${foreign.publicKey}/knowledge`, undefined],
      ['POST', `/api/portal/chatbots/${foreign.publicKey}/knowledge`, { type: 'text', content: 'x' }],
      ['DELETE', `/api/portal/chatbots/${foreign.publicKey}/knowledge/1`, undefined],
      ['GET', '/api/portal/chatbots/pk_nope', undefined],
    ] as const) {
      const reply = await request(method, path, { token, body });
      assert.equal(reply.status, 404, `${method} ${path}`);
      assert.equal(typeof reply.body.message, 'string');
    }
    assert.equal((await Chatbot.findByPk(foreign.id))?.name, foreign.name);
  });

  describe('update', () => {
    it('changes the settings and answers the detail with the reduced branding object', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, {
        token,
        body: { name: ' Helpdesk ', persona: 'Calm', instructions: 'Cite sources.', welcome_message: 'Welcome!', is_active: false, primary_color: '#10b981', launcher_text: 'Ask us', position: 'left', theme: 'forest' },
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(Object.keys(reply.body.data).sort(), DETAIL_FIELDS);
      assert.deepEqual(reply.body.data.branding, { primary_color: '#10b981', launcher_text: 'Ask us', position: 'left', theme: 'forest' });
      assert.deepEqual(
        [reply.body.data.name, reply.body.data.persona, reply.body.data.instructions, reply.body.data.welcome_message, reply.body.data.is_active],
        ['Helpdesk', 'Calm', 'Cite sources.', 'Welcome!', false],
      );
      await bot.reload();
      assert.deepEqual([bot.name, bot.isActive, bot.welcomeMessage], ['Helpdesk', false, 'Welcome!']);
    });

    it('merges branding: sending only primary_color leaves every other field as stored', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      const stored = { theme: 'midnight', launcher_text: 'Hello', quick_replies: ['Pricing'], proactive: { enabled: true, delay: 3 } };
      await bot.update({ branding: stored });
      const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token, body: { name: bot.name, primary_color: '#ff0000' } });
      assert.deepEqual(reply.body.data.branding, { primary_color: '#ff0000', launcher_text: 'Hello', position: 'right', theme: 'midnight' });
      await bot.reload();
      assert.deepEqual(bot.branding, { ...stored, primary_color: '#ff0000' });
      const detail = await get(`/api/portal/chatbots/${bot.publicKey}`, token);
      assert.deepEqual(detail.body.data.branding.quick_replies, ['Pricing']);
      assert.equal(detail.body.data.branding.proactive.delay, 3);
    });

    it('keeps what is omitted, resets an empty welcome message to the default greeting, and never changes provider or model', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      await bot.update({ persona: 'Kept', welcomeMessage: 'Custom hello', isActive: false });
      const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token, body: { name: 'Renamed', welcome_message: '', provider: 'claude', model: 'claude-x' } });
      assert.equal(reply.status, 200);
      await bot.reload();
      assert.deepEqual([bot.name, bot.persona, bot.welcomeMessage, bot.isActive, bot.provider, bot.model], ['Renamed', 'Kept', DEFAULT_WELCOME_MESSAGE, false, 'openai', 'gpt-4o-mini']);
    });

    it('answers 422 per field, changing nothing', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      for (const [body, field] of [
        [{}, 'name'],
        [{ name: '   ' }, 'name'],
        [{ name: 'n'.repeat(121) }, 'name'],
        [{ name: 'ok', persona: 'p'.repeat(2001) }, 'persona'],
        [{ name: 'ok', instructions: 'i'.repeat(4001) }, 'instructions'],
        [{ name: 'ok', welcome_message: 'w'.repeat(301) }, 'welcome_message'],
        [{ name: 'ok', is_active: 'yes' }, 'is_active'],
        [{ name: 'ok', primary_color: 'blue' }, 'primary_color'],
        [{ name: 'ok', primary_color: '#1234567890' }, 'primary_color'],
        [{ name: 'ok', launcher_text: 'l'.repeat(41) }, 'launcher_text'],
        [{ name: 'ok', position: 'top' }, 'position'],
        [{ name: 'ok', theme: 'neon' }, 'theme'],
      ] as const) {
        const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token, body });
        assert.equal(reply.status, 422, JSON.stringify(body));
        assert.ok(reply.body.errors[field], `${JSON.stringify(body)} -> ${JSON.stringify(reply.body)}`);
      }
      const unchanged = await Chatbot.findByPk(bot.id);
      assert.deepEqual([unchanged?.name, unchanged?.branding], [bot.name, bot.branding]);
    });

    it('sets every branding field, the role, the pre-chat form and identity_required; GET shows them all, the answer stays reduced', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      const prechat = { enabled: true, greeting: 'Who are you?', fields: [{ field: 'phone', label: 'Phone', type: 'tel', required: false }] };
      const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, {
        token,
        body: { name: bot.name, role: 'Sales assistant', prechat, identity_required: true, ...EVERY_BRANDING_FIELD },
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.deepEqual(reply.body.data.branding, { primary_color: '#123abc', launcher_text: 'Questions?', position: 'left', theme: 'sunset' });
      const detail = (await get(`/api/portal/chatbots/${bot.publicKey}`, token)).body.data;
      assert.deepEqual(detail.branding, EVERY_BRANDING_FIELD);
      assert.deepEqual([detail.role, detail.prechat, detail.identity_required], ['Sales assistant', prechat, true]);
      const config = (await get(`/widget/${bot.publicKey}/config`)).body;
      assert.deepEqual([config.branding, config.prechat, config.identity_required], [EVERY_BRANDING_FIELD, prechat, true]);
    });

    it('merges proactive and prechat field by field, and null clears a logo', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      await bot.update({ branding: { logo_url: 'https://cdn.example.com/old.png', proactive: { enabled: true, message: 'Hi', delay: 3 } }, prechat: { enabled: true, greeting: 'Kept' } });
      const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, {
        token,
        body: { name: bot.name, logo_url: null, proactive: { delay: 20 }, prechat: { enabled: false } },
      });
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      await bot.reload();
      assert.deepEqual(bot.branding, { logo_url: null, proactive: { enabled: true, message: 'Hi', delay: 20 } });
      assert.deepEqual(bot.prechat, { enabled: false, greeting: 'Kept' });
    });

    it('tells the AI its role: a new conversation after the change has it in the system prompt', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      await make.providerKey(company, bot.provider);
      await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token, body: { name: bot.name, role: 'Wine sommelier' } });
      fakeLlm().reset();
      fakeLlm().script({ reply: 'A red.' });
      const answer = await ask({ base: `/widget/${bot.publicKey}`, ip: freshIp() }, { visitor_id: newVisitor(), message: 'What goes with lamb?' });
      assert.equal(answer.events.at(-1)?.event, 'done', JSON.stringify(answer.events));
      assert.match(JSON.stringify(fakeLlm().requests.at(-1)?.body), /a Wine sommelier answering/);
    });

    it('refuses each bad extension value and every unknown field with 422 naming it, saving nothing of the request', async () => {
      const { company, token } = await portalTenant();
      const bot = await make.chatbot(company);
      await bot.update({ branding: { theme: 'ocean' }, prechat: { greeting: 'Stored' } });
      const before = (await Chatbot.findByPk(bot.id))!.toJSON();
      const field = { field: 'email', label: 'Email', type: 'email', required: true };
      for (const [extra, key] of [
        [{ role: ' ' }, 'role'],
        [{ role: 'r'.repeat(121) }, 'role'],
        [{ logo_url: 'javascript:alert(1)' }, 'logo_url'],
        [{ avatar_url: 'not a url' }, 'avatar_url'],
        [{ title: 't'.repeat(81) }, 'title'],
        [{ subtitle: 's'.repeat(161) }, 'subtitle'],
        [{ layout: 'huge' }, 'layout'],
        [{ launcher: 'rocket' }, 'launcher'],
        [{ quick_replies: 'Pricing' }, 'quick_replies'],
        [{ quick_replies: ['ok', ' '] }, 'quick_replies.1'],
        [{ quick_replies: Array.from({ length: 9 }, (_, i) => `r${i}`) }, 'quick_replies'],
        [{ agent_avatars: ['ftp://example.com/a.png'] }, 'agent_avatars.0'],
        [{ agent_avatars: Array.from({ length: 4 }, (_, i) => `https://example.com/${i}.png`) }, 'agent_avatars'],
        [{ composer_style: 'round' }, 'composer_style'],
        [{ sound: 'yes' }, 'sound'],
        [{ screen_share: 1 }, 'screen_share'],
        [{ copilot: null }, 'copilot'],
        [{ recommend_mode: 'always' }, 'recommend_mode'],
        [{ language: 'xx' }, 'language'],
        [{ language: 'EN' }, 'language'],
        [{ proactive: { delay: -1 } }, 'proactive.delay'],
        [{ proactive: { scroll: 101 } }, 'proactive.scroll'],
        [{ proactive: { frequency: 'hourly' } }, 'proactive.frequency'],
        [{ proactive: { colour: 'red' } }, 'proactive.colour'],
        [{ prechat: { enabled: 'on' } }, 'prechat.enabled'],
        [{ prechat: { fields: [] } }, 'prechat.fields'],
        [{ prechat: { fields: [field, field] } }, 'prechat.fields'],
        [{ prechat: { fields: [{ ...field, type: 'date' }] } }, 'prechat.fields.0.type'],
        [{ prechat: { identity_required: true } }, 'prechat.identity_required'],
        [{ identity_required: 'true' }, 'identity_required'],
        [{ branding: { theme: 'ocean' } }, 'branding'],
        [{ colour: 'red' }, 'colour'],
      ] as const) {
        // Each bad value rides with good ones: none of them may be saved either.
        const body = { name: 'Renamed', theme: 'forest', welcome_message: 'Saved?', ...extra };
        const reply = await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token, body });
        assert.equal(reply.status, 422, JSON.stringify(extra));
        assert.ok(reply.body.errors?.[key], `${JSON.stringify(extra)} -> ${JSON.stringify(reply.body)}`);
      }
      assert.deepEqual((await Chatbot.findByPk(bot.id))!.toJSON(), before);
    });

    it('needs manage-chatbots: an agent signed in to the portal gets 403', async () => {
      const { company } = await portalTenant();
      const bot = await make.chatbot(company);
      const agentToken = await make.token(await make.user(company, 'agent'), 'portal');
      assert.equal((await get(`/api/portal/chatbots/${bot.publicKey}`, agentToken)).status, 200);
      assert.equal((await request('PUT', `/api/portal/chatbots/${bot.publicKey}`, { token: agentToken, body: { name: 'x' } })).status, 403);
    });
  });
});
