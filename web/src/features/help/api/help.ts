//! Help articles (`/api/v1/help`, docs/assistant.md): the same Markdown files the
//! assistant answers from, rendered to HTML by the server.
import { queryOptions } from '@tanstack/react-query';

import { answer, api, type Schemas } from '@/lib/api';

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
    queryFn: ({ signal }) => answer(api.GET('/help', { params: { query: { locale } }, signal })),
    staleTime: Infinity,
  });
}

export function helpArticleQueryOptions(slug: string, locale: HelpLanguage) {
  return queryOptions({
    queryKey: helpKeys.article(slug, locale),
    queryFn: ({ signal }) => answer(api.GET('/help/{slug}', { params: { path: { slug }, query: { locale } }, signal })),
    staleTime: Infinity,
  });
}
