import { byId } from './dom.js';

// Below 900 px the details column is a drawer (CSS); this opens and closes it, moving focus in and
// back out as a dialog would, and Escape closes it.

const app = () => byId('app');

export function setDrawer(open: boolean, focus = true): void {
  if (app().classList.contains('drawer-open') === open) return;
  app().classList.toggle('drawer-open', open);
  byId('toggle-details').setAttribute('aria-expanded', String(open));
  if (focus) (open ? byId('close-details') : byId('toggle-details')).focus();
}

export function setUpDrawer(back: () => void): void {
  byId('toggle-details').addEventListener('click', () => setDrawer(!app().classList.contains('drawer-open')));
  byId('close-details').addEventListener('click', () => setDrawer(false));
  byId('back').addEventListener('click', back);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && app().classList.contains('drawer-open') && !byId<HTMLDialogElement>('settings').open) setDrawer(false);
  });
}

/** Phones show the list or the thread: the page says which. */
export function markThreadOpen(open: boolean): void {
  app().dataset.thread = open ? 'open' : 'none';
  if (!open) setDrawer(false, false);
}
