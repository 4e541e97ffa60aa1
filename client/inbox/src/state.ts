import type { Active, Agent, Canned, Filter, InboxItem, Tag } from './types.js';

/** What the app knows now; views read it, and only the controller in app.ts writes it. */
export const state = {
  user: null as Agent | null,
  companyId: 0,
  filter: 'all' as Filter,
  /** The search as the server takes it: 3 characters or more, else none (''). */
  q: '',
  items: [] as InboxItem[],
  /** Where the next page of the list starts; null when everything is listed. */
  nextCursor: null as string | null,
  /** The thread the agent has open (from the URL), and what was last fetched of it. */
  openId: null as string | null,
  active: null as Active | null,
  /** The thread whose own channel (AI deltas) is subscribed. */
  watching: null as string | null,
  tags: [] as Tag[],
  canned: [] as Canned[],
};

/** What views ask the controller to do; app.ts provides it. */
export interface Controller {
  open(id: string | null): void;
  setFilter(filter: Filter): void;
  refreshThread(): Promise<void>;
  refreshList(): Promise<void>;
}
