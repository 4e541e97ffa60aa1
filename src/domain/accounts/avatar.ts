import type { User } from '../../models';

// Enough contrast for white initials; picked by user id so one person keeps one colour everywhere.
const BACKGROUNDS = ['#2563eb', '#7c3aed', '#db2777', '#dc2626', '#ea580c', '#16a34a', '#0d9488', '#0891b2', '#4f46e5', '#475569'];

/**
 * The avatar URL an agent app shows: the user's own picture when one is stored, else an initials
 * picture inlined as a `data:` URL. Inlining means a client renders it with no request at all, and no
 * third party (Gravatar and the like) learns who works in which workspace.
 */
export function avatarOf(user: Pick<User, 'id' | 'name' | 'avatarUrl'>): string {
  return user.avatarUrl || initialsAvatar(user.id, user.name);
}

export function initialsAvatar(id: number, name: string): string {
  const background = BACKGROUNDS[Math.abs(id) % BACKGROUNDS.length];
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">' +
    `<rect width="128" height="128" rx="64" fill="${background}"/>` +
    '<text x="64" y="64" dy=".35em" text-anchor="middle" fill="#ffffff" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="52" font-weight="600">' +
    `${initialsOf(name)}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}`;
}

/** First letter of the first and last words; letters and digits only, so nothing needs escaping in the SVG. */
export function initialsOf(name: string): string {
  const words = name.split(/\s+/).map((word) => word.match(/[\p{L}\p{N}]/u)?.[0] ?? '').filter(Boolean);
  if (words.length === 0) return '?';
  const picked = words.length === 1 ? [words[0]!] : [words[0]!, words[words.length - 1]!];
  return picked.join('').toLocaleUpperCase();
}
