//! Help articles (`/api/v1/help`, docs/assistant.md): the same Markdown files the
//! assistant answers from, rendered to HTML by the server.
import { queryOptions } from '@tanstack/react-query';

import { apiFetch, type Schemas } from '@/lib/api';

export type HelpLanguage = Schemas['Locale'];
export type HelpSummary = Schemas['HelpSummary'];
export type HelpArticle = Schemas['HelpArticle'];

export function helpLanguage(language: string): HelpLanguage {
  return language.startsWith('en') ? 'en' : 'fr';
}

export const helpKeys = {
  all: ['help'] as const,
  list: (locale: HelpLanguage) => ['help', 'list', locale] as const,
  article: (slug: string, locale: HelpLanguage) => ['help', 'article', slug, locale] as const,
};

export function helpListQueryOptions(locale: HelpLanguage) {
  return queryOptions({
    queryKey: helpKeys.list(locale),
    queryFn: ({ signal }) => apiFetch<{ items: HelpSummary[] }>(`/help?locale=${locale}`, { signal }),
    staleTime: Infinity,
  });
}

export function helpArticleQueryOptions(slug: string, locale: HelpLanguage) {
  return queryOptions({
    queryKey: helpKeys.article(slug, locale),
    queryFn: ({ signal }) => apiFetch<HelpArticle>(`/help/${encodeURIComponent(slug)}?locale=${locale}`, { signal }),
    staleTime: Infinity,
  });
}
