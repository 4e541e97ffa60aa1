import { showLocal } from './push.js';

// The tab is open but the agent is elsewhere: a new visitor message (the `notification` event on
// their own channel, sent under the same preferences and throttle as a push) plays a sound and shows
// a desktop notification. The tag is the push's, so a push for the same thing replaces it, not doubles it.

export interface Alert {
  title?: string;
  body?: string;
  tag?: string;
  conversation_id?: string;
  url?: string;
  event?: string;
  sound_enabled?: boolean;
  volume?: number;
}

let audio: AudioContext | null = null;

/** Browsers let audio start only after a gesture: the context is made on the agent's first click or key. */
export function unlockSound(): void {
  const start = () => {
    try {
      audio ??= new AudioContext();
    } catch {
      // no audio here: stay silent
    }
  };
  document.addEventListener('pointerdown', start, { once: true });
  document.addEventListener('keydown', start, { once: true });
}

function chime(volume: number): void {
  if (!audio) return;
  if (audio.state === 'suspended') void audio.resume();
  const at = audio.currentTime;
  const osc = audio.createOscillator();
  const gain = audio.createGain();
  osc.frequency.setValueAtTime(660, at);
  osc.frequency.setValueAtTime(990, at + 0.12);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(Math.max(0.001, 0.25 * (volume / 100)), at + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.35);
  osc.connect(gain).connect(audio.destination);
  osc.start(at);
  osc.stop(at + 0.36);
}

/** Only while the tab is hidden: in sight, the list and the thread already show it. */
export function alertIfHidden(data: Alert): void {
  if (document.visibilityState === 'visible') return;
  if (data.sound_enabled !== false) chime(data.volume ?? 80);
  void showLocal(data.title ?? 'Parley', { body: data.body ?? '', tag: data.tag, data: { url: data.url, conversation_id: data.conversation_id, event: data.event } }).catch(() => undefined);
}
