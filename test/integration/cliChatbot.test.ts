import { strict as assert } from 'node:assert';
import { DEFAULT_BRANDING } from '../../src/domain/chatbots/branding';
import { Chatbot, Company } from '../../src/models';
import { fakeLlm } from '../support/hooks';
import { get } from '../support/http';
import * as factories from '../support/factories';
import { freshIp } from '../support/portal';
import { cliFails, cliOk, errorsOf, objectWithKeys } from '../support/processes';
import { ask, newVisitor } from '../support/widget';

const SETTINGS_KEYS = [
  'id',
  'public_key',
  'company_id',
  'name',
  'role',
  'provider',
  'model',
  'is_active',
  'persona',
  'instructions',
  'welcome_message',
  'branding',
  'prechat',
  'identity_required',
  'first_response_seconds',
];

async function tenant() {
  const { company } = await factories.workspace();
  const bot = await factories.chatbot(company);
  return { company, bot };
}

/** What `parley chatbot show|update` printed under `chatbot`, checked to hold exactly these keys. */
const settingsIn = (body: Record<string, unknown>, keys = SETTINGS_KEYS) => objectWithKeys(objectWithKeys(body, ['chatbot']).chatbot, keys, 'chatbot');

const identityToken = (secret: string, sub: string) => factories.identityToken(secret, { sub, exp: Math.floor(Date.now() / 1000) + 600 });

describe('parley chatbot show|update (real process)', function () {
  this.timeout(60_000);

  it('show prints every setting by public key or by id, never the identity secret', async () => {
    const { company, bot } = await tenant();
    await bot.update({ persona: 'Calm', branding: { theme: 'ocean' }, prechat: { enabled: true } });
    const secret = await factories.chatbotIdentitySecret(bot);
    const byKey = settingsIn(await cliOk(['chatbot', 'show', '--chatbot', bot.publicKey]));
    assert.deepEqual(byKey, {
      id: bot.id,
      public_key: bot.publicKey,
      company_id: company.id,
      name: bot.name,
      role: 'Support assistant',
      provider: 'openai',
      model: 'gpt-4o-mini',
      is_active: true,
      persona: 'Calm',
      instructions: '',
      welcome_message: bot.welcomeMessage,
      branding: { ...DEFAULT_BRANDING, theme: 'ocean', proactive: { ...DEFAULT_BRANDING.proactive } },
      prechat: (await get(`/widget/${bot.publicKey}/config`)).body.prechat,
      identity_required: false,
      first_response_seconds: 300,
    });
    assert.equal((byKey.prechat as { enabled: boolean }).enabled, true);
    assert.deepEqual(settingsIn(await cliOk(['chatbot', 'show', '--chatbot', String(bot.id)])), byKey);
    assert.ok(!JSON.stringify(byKey).includes(secret));

    const missing = await cliFails(['chatbot', 'show', '--chatbot', 'pk_nothing_here']);
    assert.match(missing.message as string, /Chatbot not found/);
  });

  it('update changes exactly what is given: branding merged, pre-chat merged, the workspace target set', async () => {
    const { company, bot } = await tenant();
    await bot.update({ branding: { theme: 'ocean', quick_replies: ['Kept'], proactive: { enabled: true, message: 'Hi' } }, prechat: { greeting: 'Kept' } });
    const printed = settingsIn(
      await cliOk([
        'chatbot', 'update', '--chatbot', bot.publicKey,
        '--name', ' Concierge ',
        '--role', 'Sales assistant',
        '--persona', 'Warm',
        '--instructions', 'Mention the sale.',
        '--welcome-message', 'Bonjour !',
        '--provider', 'claude',
        '--active', 'false',
        '--branding-json', JSON.stringify({ language: 'fr', position: 'left', logo_url: 'https://cdn.example.com/l.png', proactive: { delay: 30 } }),
        '--prechat-json', JSON.stringify({ enabled: true }),
        '--identity-required', 'true',
        '--first-response-seconds', '120',
      ]),
    );
    await bot.reload();
    assert.deepEqual(
      [bot.name, bot.role, bot.persona, bot.instructions, bot.welcomeMessage, bot.provider, bot.model, bot.isActive],
      ['Concierge', 'Sales assistant', 'Warm', 'Mention the sale.', 'Bonjour !', 'claude', 'claude-3-5-haiku-latest', false],
    );
    assert.deepEqual(bot.branding, {
      theme: 'ocean',
      quick_replies: ['Kept'],
      language: 'fr',
      position: 'left',
      logo_url: 'https://cdn.example.com/l.png',
      proactive: { enabled: true, message: 'Hi', delay: 30 },
    });
    assert.deepEqual(bot.prechat, { greeting: 'Kept', enabled: true, identity_required: true });
    assert.equal((await Company.findByPk(company.id))?.firstResponseTargetSeconds, 120);
    // It prints what `show` prints.
    assert.deepEqual(printed, settingsIn(await cliOk(['chatbot', 'show', '--chatbot', String(bot.id)])));
    assert.deepEqual([printed.identity_required, printed.first_response_seconds, (printed.branding as { language: string }).language], [true, 120, 'fr']);

    // A model given beside the provider is kept; an empty welcome message restores the default.
    await cliOk(['chatbot', 'update', '--chatbot', bot.publicKey, '--provider', 'openai', '--model', 'gpt-4.1', '--welcome-message', '']);
    await bot.reload();
    assert.deepEqual([bot.provider, bot.model, bot.welcomeMessage, bot.name], ['openai', 'gpt-4.1', 'Hi! How can I help you today?', 'Concierge']);
  });

  it('identity-required true makes the widget refuse a visitor without a verified identity token', async () => {
    const { company, bot } = await tenant();
    await factories.providerKey(company, bot.provider);
    await cliOk(['chatbot', 'update', '--chatbot', bot.publicKey, '--identity-required', 'true']);
    assert.equal((await get(`/widget/${bot.publicKey}/config`)).body.identity_required, true);
    const widget = { base: `/widget/${bot.publicKey}`, ip: freshIp() };
    const refused = await ask(widget, { visitor_id: newVisitor(), message: 'Hello' });
    assert.equal(refused.status, 422);
    assert.ok(refused.body.errors.identity, JSON.stringify(refused.body));
    fakeLlm().reset();
    fakeLlm().script({ reply: 'Welcome back.' });
    const signedIn = await ask(widget, { visitor_id: newVisitor(), message: 'Hello', identity: identityToken(await factories.chatbotIdentitySecret(bot), 'cust-1') });
    assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  });

  it('--rotate-identity-secret prints the new secret once; the old one stops verifying at once', async () => {
    const { company, bot } = await tenant();
    await factories.providerKey(company, bot.provider);
    const oldSecret = await factories.chatbotIdentitySecret(bot);
    const printed = settingsIn(await cliOk(['chatbot', 'update', '--chatbot', bot.publicKey, '--rotate-identity-secret']), [...SETTINGS_KEYS, 'identity_secret']);
    const newSecret = printed.identity_secret as string;
    assert.equal(newSecret.length, 48);
    assert.notEqual(newSecret, oldSecret);
    assert.equal(await factories.chatbotIdentitySecret((await Chatbot.findByPk(bot.id))!), newSecret);

    const widget = { base: `/widget/${bot.publicKey}`, ip: freshIp() };
    const stale = await ask(widget, { visitor_id: newVisitor(), message: 'Hi', identity: identityToken(oldSecret, 'cust-2') });
    assert.equal(stale.status, 422);
    assert.ok(stale.body.errors.identity, JSON.stringify(stale.body));
    fakeLlm().reset();
    fakeLlm().script({ reply: 'Hello.' });
    const fresh = await ask(widget, { visitor_id: newVisitor(), message: 'Hi', identity: identityToken(newSecret, 'cust-2') });
    assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
    // Other updates never print a secret.
    settingsIn(await cliOk(['chatbot', 'update', '--chatbot', bot.publicKey, '--name', 'Same secret']));
  });

  it('refuses a bad value with exit 1 and errors naming the field, saving nothing of the command', async () => {
    const { company, bot } = await tenant();
    await bot.update({ branding: { theme: 'ocean' } });
    const before = (await Chatbot.findByPk(bot.id))!.toJSON();
    const good = ['--name', 'Renamed', '--role', 'Saved?', '--rotate-identity-secret', '--first-response-seconds', '60'];
    for (const [flags, field] of [
      [['--branding-json', '{"theme":"neon","position":"left"}'], 'theme'],
      [['--branding-json', '{"proactive":{"delay":-5}}'], 'proactive.delay'],
      [['--branding-json', '{"language":"english"}'], 'language'],
      [['--branding-json', '{"colour":"red"}'], 'colour'],
      [['--branding-json', '[1]'], 'branding-json'],
      [['--branding-json', '{theme:'], 'branding-json'],
      [['--prechat-json', '{"fields":[{"field":"age","label":"Age","type":"text","required":true}]}'], 'prechat.fields.0.field'],
      [['--prechat-json', '{"identity_required":true}'], 'prechat.identity_required'],
      [['--active', 'yes'], 'active'],
      [['--identity-required', 'maybe'], 'identity-required'],
      [['--first-response-seconds', '0'], 'first-response-seconds'],
      [['--provider', 'skynet'], 'provider'],
      [['--role', '   '], 'role'],
      [['--name', 'n'.repeat(121)], 'name'],
    ] as const) {
      const body = await cliFails(['chatbot', 'update', '--chatbot', bot.publicKey, ...good, ...flags]);
      assert.ok(errorsOf(body)[field], `${flags.join(' ')} -> ${JSON.stringify(body)}`);
    }
    assert.deepEqual((await Chatbot.findByPk(bot.id))!.toJSON(), before);
    assert.equal((await Company.findByPk(company.id))?.firstResponseTargetSeconds, 300);
  });
});
