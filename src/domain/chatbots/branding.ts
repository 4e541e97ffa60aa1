import type { Language } from './languages';

/** The full branding object; its allowed values and defaults are listed in docs/api.md "Branding values". */
export const THEMES = ['minimal', 'ocean', 'emerald', 'midnight', 'sunset', 'crisp', 'violet', 'rose', 'slate', 'forest'] as const;
export const LAYOUTS = ['standard', 'compact', 'expanded'] as const;
export const LAUNCHERS = ['bubble', 'tab', 'icon'] as const;
export const COMPOSER_STYLES = ['rounded', 'flat', 'pill'] as const;
export const RECOMMEND_MODES = ['off', 'auto', 'on_request'] as const;
export const PROACTIVE_FREQUENCIES = ['once_per_session', 'once_per_day', 'always'] as const;

export interface Branding {
  primary_color: string;
  launcher_text: string;
  position: 'left' | 'right';
  theme: (typeof THEMES)[number];
  logo_url: string | null;
  avatar_url: string | null;
  title: string;
  subtitle: string;
  layout: (typeof LAYOUTS)[number];
  launcher: (typeof LAUNCHERS)[number];
  /** Short texts offered as one-tap replies. */
  quick_replies: string[];
  /** Avatar image URLs shown as "the team" in the panel header. */
  agent_avatars: string[];
  composer_style: (typeof COMPOSER_STYLES)[number];
  sound: boolean;
  screen_share: boolean;
  copilot: boolean;
  auto_actions: boolean;
  copilot_use_profile: boolean;
  copilot_autostart: boolean;
  live_visitors: boolean;
  behavior_tracking: boolean;
  recommend_mode: (typeof RECOMMEND_MODES)[number];
  /** The widget's language: `auto` follows the visitor's browser. */
  language: Language;
  proactive: {
    enabled: boolean;
    message: string;
    delay: number;
    scroll: number;
    exit_intent: boolean;
    url_contains: string;
    frequency: (typeof PROACTIVE_FREQUENCIES)[number];
  };
}

export type StoredBranding = Partial<Omit<Branding, 'proactive'>> & { proactive?: Partial<Branding['proactive']> };

export const DEFAULT_BRANDING: Readonly<Branding> = Object.freeze<Branding>({
  primary_color: '#2563eb',
  launcher_text: 'Chat with us',
  position: 'right',
  theme: 'minimal',
  logo_url: null,
  avatar_url: null,
  title: 'Hi there 👋',
  subtitle: 'We usually reply in a few minutes',
  layout: 'standard',
  launcher: 'bubble',
  quick_replies: [],
  agent_avatars: [],
  composer_style: 'rounded',
  sound: true,
  screen_share: false,
  copilot: true,
  auto_actions: false,
  copilot_use_profile: false,
  copilot_autostart: false,
  live_visitors: false,
  behavior_tracking: true,
  recommend_mode: 'off',
  language: 'auto',
  proactive: { enabled: false, message: '', delay: 10, scroll: 0, exit_intent: false, url_contains: '', frequency: 'once_per_session' },
});

export const DEFAULT_WELCOME_MESSAGE = 'Hi! How can I help you today?';

/** The stored overrides laid over the defaults: every field present, whatever was stored. */
export function resolveBranding(stored: StoredBranding | null | undefined): Branding {
  return {
    ...DEFAULT_BRANDING,
    ...stored,
    proactive: { ...DEFAULT_BRANDING.proactive, ...stored?.proactive },
  };
}
