import { strict as assert } from 'node:assert';
import { parseUserAgent, type UserAgentInfo } from '../../src/domain/visitors/userAgent';

/** Real User-Agent strings, as browsers and crawlers send them. */
const CASES: Array<[string, string, UserAgentInfo]> = [
  [
    'Chrome on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { device: 'desktop', browser: 'Chrome', os: 'Windows' },
  ],
  [
    'Edge on Windows',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.80',
    { device: 'desktop', browser: 'Edge', os: 'Windows' },
  ],
  ['Firefox on Windows', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0', { device: 'desktop', browser: 'Firefox', os: 'Windows' }],
  ['Internet Explorer 11', 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko', { device: 'desktop', browser: 'Internet Explorer', os: 'Windows' }],
  [
    'Safari on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15',
    { device: 'desktop', browser: 'Safari', os: 'macOS' },
  ],
  [
    'Chrome on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { device: 'desktop', browser: 'Chrome', os: 'macOS' },
  ],
  [
    'Opera on macOS',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/122.0.0.0 Safari/537.36 OPR/108.0.0.0',
    { device: 'desktop', browser: 'Opera', os: 'macOS' },
  ],
  ['Firefox on Linux', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0', { device: 'desktop', browser: 'Firefox', os: 'Linux' }],
  [
    'Chrome on ChromeOS',
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { device: 'desktop', browser: 'Chrome', os: 'ChromeOS' },
  ],
  [
    'Safari on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1',
    { device: 'mobile', browser: 'Safari', os: 'iOS' },
  ],
  [
    'Chrome on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0.6367.88 Mobile/15E148 Safari/604.1',
    { device: 'mobile', browser: 'Chrome', os: 'iOS' },
  ],
  [
    'Firefox on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/125.0 Mobile/15E148 Safari/605.1.15',
    { device: 'mobile', browser: 'Firefox', os: 'iOS' },
  ],
  [
    'Edge on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/124.0.2478.89 Mobile/15E148 Safari/605.1.15',
    { device: 'mobile', browser: 'Edge', os: 'iOS' },
  ],
  [
    'an in-app web view on iPhone (no Safari token)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148',
    { device: 'mobile', browser: 'Safari', os: 'iOS' },
  ],
  [
    'Instagram on iPhone',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 327.0.3.30.91 (iPhone14,5; iOS 17_4; en_US; en; scale=3.00; 1170x2532; 589574185)',
    { device: 'mobile', browser: 'Instagram', os: 'iOS' },
  ],
  [
    'Safari on iPad',
    'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
    { device: 'tablet', browser: 'Safari', os: 'iOS' },
  ],
  [
    'Chrome on an Android phone',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
    { device: 'mobile', browser: 'Chrome', os: 'Android' },
  ],
  [
    'Chrome on an Android tablet (no "Mobile")',
    'Mozilla/5.0 (Linux; Android 13; SM-X710) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
    { device: 'tablet', browser: 'Chrome', os: 'Android' },
  ],
  [
    'Samsung Internet on a Galaxy phone',
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S921B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 Chrome/117.0.0.0 Mobile Safari/537.36',
    { device: 'mobile', browser: 'Samsung Internet', os: 'Android' },
  ],
  [
    'Firefox on Android',
    'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
    { device: 'mobile', browser: 'Firefox', os: 'Android' },
  ],
  [
    'Opera on Android',
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 OPR/81.1.4292.78446',
    { device: 'mobile', browser: 'Opera', os: 'Android' },
  ],
  [
    'a Cubot phone (its model name holds "bot")',
    'Mozilla/5.0 (Linux; Android 9; CUBOT P30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
    { device: 'mobile', browser: 'Chrome', os: 'Android' },
  ],
  [
    'Silk on a Kindle Fire',
    'Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/120.3.1 like Chrome/120.0.6099.230 Safari/537.36',
    { device: 'tablet', browser: 'Silk', os: 'Android' },
  ],
  ['Googlebot', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', { device: 'bot', browser: 'Googlebot', os: null }],
  [
    'Googlebot smartphone',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    { device: 'bot', browser: 'Googlebot', os: 'Android' },
  ],
  ['bingbot', 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', { device: 'bot', browser: 'bingbot', os: null }],
  ['Facebook link preview', 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', { device: 'bot', browser: 'facebookexternalhit', os: null }],
  ['Slack link preview', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', { device: 'bot', browser: 'Slackbot', os: null }],
  [
    'headless Chrome',
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/124.0.0.0 Safari/537.36',
    { device: 'bot', browser: 'HeadlessChrome', os: 'Linux' },
  ],
  ['curl', 'curl/8.5.0', { device: 'bot', browser: 'curl', os: null }],
];

describe('parseUserAgent', () => {
  for (const [name, userAgent, expected] of CASES) {
    it(name, () => assert.deepEqual(parseUserAgent(userAgent), expected));
  }

  it('knows nothing without a User-Agent', () => {
    for (const missing of [undefined, null, '', '   ']) assert.deepEqual(parseUserAgent(missing), { device: null, browser: null, os: null });
  });

  it('calls an unknown but browser-like agent a desktop with no browser name', () => {
    assert.deepEqual(parseUserAgent('SomethingNew/1.0'), { device: 'desktop', browser: null, os: null });
  });
});
