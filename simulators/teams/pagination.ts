export const DEFAULT_PAGE_SIZE = 20;

export interface PageRequest {
  number: number;
  size: number;
}

function positiveInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 ? n : undefined;
}

/**
 * Reads page[number] and page[size]. URLSearchParams already decodes `%5B`/`%5D`, so raw and
 * encoded brackets arrive alike. Unusable values fall back to the defaults, as the real service
 * does, rather than failing the request; a size above the maximum is clamped to it.
 */
export function pageRequest(query: URLSearchParams, maxPageSize: number): PageRequest {
  return {
    number: positiveInt(query.get('page[number]')) ?? 1,
    size: Math.min(positiveInt(query.get('page[size]')) ?? DEFAULT_PAGE_SIZE, maxPageSize),
  };
}

export interface Page<T> {
  items: T[];
  links: Record<'self' | 'first' | 'prev' | 'next' | 'last', string | null>;
  meta: { pagination: Record<'current-page' | 'next-page' | 'prev-page' | 'total-pages' | 'total-count', number | null> };
}

/** Cuts one page out of `all`; links repeat the request's other parameters (q, filter, include). */
export function paginate<T>(all: T[], page: PageRequest, requestUrl: URL): Page<T> {
  const totalPages = Math.max(1, Math.ceil(all.length / page.size));
  const start = (page.number - 1) * page.size;
  const link = (n: number | null): string | null => {
    if (n === null) return null;
    const url = new URL(requestUrl);
    url.searchParams.set('page[number]', String(n));
    url.searchParams.set('page[size]', String(page.size));
    return url.toString();
  };
  const prev = page.number > 1 ? Math.min(page.number - 1, totalPages) : null;
  const next = page.number < totalPages ? page.number + 1 : null;
  return {
    items: all.slice(start, start + page.size),
    links: { self: link(page.number), first: link(1), prev: link(prev), next: link(next), last: link(totalPages) },
    meta: {
      pagination: {
        'current-page': page.number,
        'next-page': next,
        'prev-page': prev,
        'total-pages': totalPages,
        'total-count': all.length,
      },
    },
  };
}
