import { strict as assert } from 'node:assert';
import { setAsStored } from '../../src/actors/conversation/record';
import { Conversation } from '../../src/models';

// A one-statement write leaves the conversation in memory as `set(columns, { raw: true })` would
// (src/actors/conversation/record.ts, `setAsStored`): the same values, nothing pending.

describe('setAsStored (a one-statement write in memory)', () => {
  const loaded = () =>
    Conversation.build(
      {
        id: 7,
        publicId: '6f9619ff-8b86-4d01-b42d-00cf4fc964ff',
        companyId: 3,
        chatbotId: 4,
        visitorKey: 'visitor-a',
        channel: 'widget',
        messageCount: 4,
        unreadCount: 1,
        seq: 9,
        version: 5,
        meta: { page: '/faq' },
        lastMessageAt: new Date('2026-11-28T07:00:00.000Z'),
      },
      { isNewRecord: false, raw: true },
    );

  it('leaves the same values, previous values and pending changes as Sequelize raw set', () => {
    const columns = {
      messageCount: 5,
      unreadCount: 2,
      lastMessagePreview: 'Is my parcel on its way?',
      lastMessageAt: new Date('2026-11-28T07:01:00.000Z'),
      meta: { page: '/shipping', ref: 'ad' },
      detectedLanguage: 'en',
      seq: 10,
      version: 6,
      updatedAt: new Date('2026-11-28T07:01:00.001Z'),
    };
    const bySequelize = loaded();
    const byUs = loaded();
    // Something pending before the write stays pending in both.
    bySequelize.set({ visitorName: 'Ann' });
    byUs.set({ visitorName: 'Ann' });
    bySequelize.set(columns, { raw: true });
    setAsStored(byUs, columns);
    assert.deepEqual(byUs.get({ plain: true }), bySequelize.get({ plain: true }));
    assert.deepEqual(byUs.previous(), bySequelize.previous());
    assert.deepEqual(byUs.changed(), bySequelize.changed());
    assert.equal(byUs.previous('messageCount'), 5);
  });

  it('leaves a boolean column to Sequelize, whose raw sanitizer reads it', () => {
    const bySequelize = loaded();
    const byUs = loaded();
    const columns = { blocked: 'true' as unknown as boolean, seq: 10 };
    bySequelize.set(columns, { raw: true });
    setAsStored(byUs, columns);
    assert.deepEqual(byUs.get({ plain: true }), bySequelize.get({ plain: true }));
    assert.equal(byUs.blocked, bySequelize.blocked);
  });
});
