import type { Browser, BrowserContextOptions, Page } from 'playwright-core';

/**
 * A fresh browser context (its own storage) with its script errors collected into `errors`: the
 * browser tests assert none happened.
 */
export async function newPage(browser: Browser, errors: string[], options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('close', () => void context.close().catch(() => undefined));
  return page;
}

/** The agent signs in to the web inbox through its form and waits until it is live. */
export async function signInInbox(page: Page, url: string, email: string, password = 'password-123'): Promise<Page> {
  await page.goto(url);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('#connection[data-online="true"]').waitFor({ timeout: 15_000 });
  return page;
}

/** The thread's stored lines of one role (the AI's live bubble excluded). */
export const threadLines = (page: Page, role: string) => page.locator(`#messages li[data-role="${role}"]:not([data-live])`);
