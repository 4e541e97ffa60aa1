/**
 * Device class, browser family and operating system from a User-Agent header, for the agent's
 * live-visitors list. Coarse on purpose (no versions, no device models): a few ordered rules cover
 * what agents need, where a full parser would be a large dependency updated for every new phone.
 * Client hints would be more exact but the widget's heartbeat is a cross-origin fetch that does not get them.
 */

export type Device = 'desktop' | 'mobile' | 'tablet' | 'bot';

export interface UserAgentInfo {
  /** Null only when there is no User-Agent at all. */
  device: Device | null;
  browser: string | null;
  os: string | null;
}

type Rule = readonly [pattern: RegExp, name: string];

/**
 * Crawlers, link previewers and scripts. "bot" must end a word or be followed by a separator, so a
 * Cubot phone (`CUBOT P30`) is not one; a headless browser is automation, not a visitor.
 */
const BOT = /(?<!cu)bot(?=[\s/;)_-]|$)|crawler|spider|crawling|slurp|facebookexternalhit|headless|lighthouse|pingdom|preview|^(curl|wget|python|go-http-client|java|okhttp|axios|node-fetch|undici|postman)/i;
const BOT_NAME = /\b([A-Za-z][\w-]*?bot|[A-Za-z-]*(?:crawler|spider)|facebookexternalhit|HeadlessChrome|curl|Wget|python-requests)\b/i;

/** Checked in order: derivatives of Chromium name themselves before `Chrome/`, and Chrome before `Safari/`. */
const BROWSERS: readonly Rule[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b|\bOPiOS\/|\bOPT\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\bUCBrowser\//, 'UC Browser'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\bFBAN\/|\bFBAV\//, 'Facebook'],
  [/\bInstagram\b/, 'Instagram'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bMSIE |\bTrident\//, 'Internet Explorer'],
  [/\bSilk\//, 'Silk'],
  [/\bChromium\//, 'Chromium'],
  [/\bChrome\/|\bCriOS\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\/|\bAppleWebKit\/.*\bMobile\/\w+$/, 'Safari'],
];

/** iOS before macOS (an iPhone says "like Mac OS X"), Android and ChromeOS before Linux. */
const SYSTEMS: readonly Rule[] = [
  [/\bWindows\b/, 'Windows'],
  [/\biPhone\b|\biPad\b|\biPod\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b|\bUbuntu\b|\bFedora\b/, 'Linux'],
];

// Android phones say "Mobile"; Android tablets do not. Kindle and Silk are Amazon's tablets.
const TABLET = /\biPad\b|\bTablet\b|\bPlayBook\b|\bKindle\b|\bSilk\//i;
const MOBILE = /\bMobi|\biPhone\b|\biPod\b|\bWindows Phone\b|\bBlackBerry\b|\bBB10\b|\bOpera Mini\b/i;

const first = (rules: readonly Rule[], ua: string): string | null => rules.find(([pattern]) => pattern.test(ua))?.[1] ?? null;

export function parseUserAgent(userAgent: string | null | undefined): UserAgentInfo {
  const ua = userAgent?.trim() ?? '';
  if (!ua) return { device: null, browser: null, os: null };
  const os = first(SYSTEMS, ua);
  if (BOT.test(ua)) return { device: 'bot', browser: BOT_NAME.exec(ua)?.[1] ?? null, os };
  return { device: deviceOf(ua, os), browser: first(BROWSERS, ua), os };
}

function deviceOf(ua: string, os: string | null): Device {
  if (TABLET.test(ua) || (os === 'Android' && !/\bMobile\b/.test(ua))) return 'tablet';
  if (MOBILE.test(ua)) return 'mobile';
  return 'desktop';
}
