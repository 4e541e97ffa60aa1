import { strict as assert } from 'node:assert';
import { detect, detectAll } from 'tinyld';
import { LANGUAGE_SAMPLE_CHARS, sampleOf } from '../../src/domain/conversations/language';
import { fastDetect, fastDetectAll } from '../../src/domain/conversations/languageDetector';

/** Texts in many scripts and shapes: prose, chat lines, mixed languages, signs, digits, emoji, accents, gram-shaped oddities. */
const PROSE = [
  'My parcel has not arrived yet, can you tell me where it is?',
  "Bonjour, ma commande n'est toujours pas arrivée, pouvez-vous me dire où elle se trouve ?",
  'Hallo, meine Bestellung ist noch nicht angekommen. Können Sie mir sagen, wo sie ist?',
  'Hola, mi pedido todavía no ha llegado, ¿me pueden decir dónde está?',
  'Hallo, mijn bestelling is nog niet aangekomen, kunt u mij vertellen waar die is?',
  'こんにちは、注文した商品がまだ届いていません。どこにあるか教えてもらえますか？',
  'Olá, a minha encomenda ainda não chegou, podem dizer-me onde está?',
  'Ciao, il mio ordine non è ancora arrivato, potete dirmi dove si trova?',
  'Здравствуйте, мой заказ ещё не пришёл, подскажите, где он?',
  'Γεια σας, η παραγγελία μου δεν έχει φτάσει ακόμα, μπορείτε να μου πείτε πού είναι;',
  'مرحبا، طلبي لم يصل بعد، هل يمكنك أن تخبرني أين هو؟',
  'שלום, ההזמנה שלי עדיין לא הגיעה, תוכלו לומר לי איפה היא?',
  '你好，我的包裹还没有到，你能告诉我它在哪里吗？',
  '안녕하세요, 주문한 물건이 아직 도착하지 않았습니다. 어디에 있는지 알려주실 수 있나요?',
  'สวัสดีครับ พัสดุของผมยังไม่มาถึง ช่วยบอกได้ไหมว่าอยู่ที่ไหน',
  'नमस्ते, मेरा पार्सल अभी तक नहीं आया है, क्या आप बता सकते हैं कि यह कहाँ है?',
  'Merhaba, siparişim henüz gelmedi, nerede olduğunu söyleyebilir misiniz?',
  'Dzień dobry, moja paczka jeszcze nie dotarła, czy możecie mi powiedzieć, gdzie jest?',
  'Hej, mitt paket har inte kommit än, kan ni berätta var det är?',
  'Hei, pakkeni ei ole vielä saapunut, voitteko kertoa missä se on?',
  'Dobrý den, můj balík ještě nedorazil, můžete mi říct, kde je?',
  'Xin chào, bưu kiện của tôi vẫn chưa đến, bạn có thể cho tôi biết nó ở đâu không?',
  'Habari, kifurushi changu bado hakijafika, unaweza kuniambia kiko wapi?',
  'Halo, paket saya belum sampai, bisakah Anda memberi tahu di mana?',
  'Szia, a csomagom még nem érkezett meg, meg tudnátok mondani, hol van?',
];
const ODD = [
  '',
  ' ',
  'ok',
  'thx!!',
  'order #1042',
  '1234 5678 !? '.repeat(20),
  'tokens=3 every=5 first=4000 (question 12)',
  'tokens=3 every=5 first=0 (hello 7)\ntokens=3 every=5 first=4000 (start 3)',
  '__proto__ constructor toString hasOwnProperty valueOf __defineGetter__',
  'x'.repeat(400),
  '👨‍👩‍👧 👋🏽 hello there '.repeat(5),
  `e${'\u0301'.repeat(12)} `.repeat(10),
  'Crème brûlée, façade, naïve, coöperate, São Paulo, Ærø, Øresund, Łódź',
  'I need help — “quotes”, «guillemets», „Anführung“; (parens) [brackets] {braces} <angles> … ⋯ 《书名》「引用」',
  'ＡＢＣ１２３ full width ｔｅｘｔ and ideographic　space',
  'mixed English und Deutsch et français y español in one line',
  'a b c d e f g h i j k l m n o p q r s t u v w x y z',
  '\t tabs\tand\nnew\r\nlines   and  spaces ',
  'https://shop.example/faq?id=12&x=y mail@example.com +33 6 12 34 56 78',
  "l'été d'un homme qu'il aime aujourd'hui",
  'ÇA VA? OUI TRÈS BIEN MERCI BEAUCOUP',
  '\u{1D465}\u{1D466} math letters and 𝑥 in text',
];

/** A seeded mix of words from every text above, so the corpus holds combinations no one wrote by hand. */
function mixtures(count: number): string[] {
  const words = [...PROSE, ...ODD].join(' ').split(/\s+/).filter(Boolean);
  let seed = 23;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * 30) }, () => words[Math.floor(next() * words.length)]).join(next() < 0.3 ? ', ' : ' '));
}

describe('language detector (tinyld, without its per-word allocations)', () => {
  it('is in use: its tables were taken from this version of tinyld', () => {
    assert.ok(fastDetect, 'fastDetect is null: language detection falls back to tinyld itself');
  });

  it("gives tinyld's detect answer on every text of a varied corpus, raw and as detectLanguage samples it, with every language's share", () => {
    const corpus = [...PROSE, ...ODD, ...mixtures(400), PROSE.join('\n'), ...PROSE.map((text) => text.repeat(8).slice(-LANGUAGE_SAMPLE_CHARS))];
    let named = 0;
    // Twice over: the second pass answers from the words and chunks the first remembered.
    for (const text of [...corpus, ...corpus]) {
      const expected = detect(text);
      assert.equal(fastDetect!(text), expected, JSON.stringify(text));
      // Every language found and its share, to the bit: the scoring is the same, not only its winner.
      assert.deepEqual(fastDetectAll!(text), detectAll(text), JSON.stringify(text));
      if (expected) named++;
    }
    // The corpus must exercise the scoring, not only the empty answer.
    assert.ok(named > corpus.length, `${named} of ${2 * corpus.length} texts named a language`);
    assert.ok(new Set(corpus.map((text) => detect(text))).size > 15, 'the corpus names many languages');
  });

  it('samples every text as the Unicode-class regexes do, also where ASCII text takes the shorter way', () => {
    // The sample as it was taken before its ASCII way: the regexes alone.
    const bySpec = (text: string) =>
      text
        .slice(-LANGUAGE_SAMPLE_CHARS)
        .replace(/[^\p{L}\p{M}\p{P}\s]+/gu, ' ')
        .replace(/(\p{M}{2})\p{M}+/gu, '$1')
        .split(/\s+/)
        .filter(Boolean)
        .slice(-40)
        .map((word) => word.slice(0, 40))
        .join(' ');
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    // Every ASCII character, in runs and alone, and long words: the ASCII way's whole domain.
    const ascii = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));
    const randomAscii = Array.from({ length: 300 }, () => Array.from({ length: Math.floor(next() * 500) }, () => ascii[Math.floor(next() * 128)]).join(''));
    const wordy = Array.from({ length: 100 }, () => Array.from({ length: 1 + Math.floor(next() * 80) }, () => 'ab1-c?'.repeat(1 + Math.floor(next() * 12))).join(next() < 0.5 ? ' ' : '\t'));
    const corpus = [...PROSE, ...ODD, ...mixtures(200), ...ascii, ascii.join(''), ...randomAscii, ...wordy, `${'é'.repeat(3)}${ascii.join('')}`];
    for (const text of corpus) assert.equal(sampleOf(text), bySpec(text), JSON.stringify(text));
  });

});
