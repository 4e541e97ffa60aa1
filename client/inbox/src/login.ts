import { explain, post, storeSession } from './api.js';
import { byId } from './dom.js';
import type { Session } from './types.js';

/** Shows the sign-in form until the agent signs in; resolves with the new session. */
export function signIn(notice = ''): Promise<Session> {
  const form = byId<HTMLFormElement>('login-form');
  const error = byId('login-error');
  byId('app').hidden = true;
  byId('login').hidden = false;
  error.textContent = notice;
  byId('login-email').focus();
  return new Promise((resolve) => {
    form.onsubmit = async (event) => {
      event.preventDefault();
      const email = byId<HTMLInputElement>('login-email').value.trim();
      const password = byId<HTMLInputElement>('login-password').value;
      if (!email || !password) {
        error.textContent = 'Enter your email and password.';
        return;
      }
      const button = form.querySelector('button')!;
      button.disabled = true;
      error.textContent = '';
      try {
        const session = await post<Session>('login', { email, password, device_name: 'Web inbox' });
        storeSession(session);
        byId<HTMLInputElement>('login-password').value = '';
        form.onsubmit = null;
        byId('login').hidden = true;
        resolve(session);
      } catch (failure) {
        error.textContent = explain(failure);
        byId('login-password').focus();
      } finally {
        button.disabled = false;
      }
    };
  });
}
