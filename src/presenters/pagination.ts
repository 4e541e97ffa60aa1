/** Laravel's length-aware paginator envelope (the v1 conversation list). */
export function presentPage<T>(
  data: T[],
  page: { current: number; perPage: number; total: number; path: string; keepPerPage: boolean },
) {
  const lastPage = Math.max(1, Math.ceil(page.total / page.perPage));
  const url = (n: number) => {
    const query = new URLSearchParams({ page: String(n) });
    if (page.keepPerPage) query.set('per_page', String(page.perPage));
    return `${page.path}?${query}`;
  };
  const from = (page.current - 1) * page.perPage + 1;
  return {
    current_page: page.current,
    data,
    first_page_url: url(1),
    // Like Laravel, a page past the end has no rows and so no from/to.
    from: data.length ? from : null,
    last_page: lastPage,
    last_page_url: url(lastPage),
    next_page_url: page.current < lastPage ? url(page.current + 1) : null,
    path: page.path,
    per_page: page.perPage,
    prev_page_url: page.current > 1 ? url(page.current - 1) : null,
    to: data.length ? from + data.length - 1 : null,
    total: page.total,
  };
}
