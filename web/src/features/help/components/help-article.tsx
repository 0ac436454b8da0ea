import { useQuery } from '@tanstack/react-query';
import { useEffect, type MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Spinner } from '@/components/ui/spinner';
import { isApiError } from '@/lib/api';

import { helpArticleQueryOptions, helpLanguage } from '../api/help';

/**
 * One help article. Its HTML is rendered by the server from the Markdown files
 * in the repository (docs/help/), never from user input. Links to app pages
 * inside it navigate within the app.
 */
export function HelpArticleView({ slug, onTitle }: { slug: string; onTitle: (title: string) => void }) {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const query = useQuery(helpArticleQueryOptions(slug, helpLanguage(i18n.language)));
  const title = query.data?.title;

  useEffect(() => {
    if (title) onTitle(title);
  }, [title, onTitle]);

  const onClick = (event: MouseEvent<HTMLDivElement>) => {
    const anchor = (event.target as HTMLElement).closest('a');
    const href = anchor?.getAttribute('href');
    if (!href || !href.startsWith('/') || href.startsWith('//') || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    void navigate(href);
  };

  let body;
  if (query.isPending) body = <Spinner label={t('app.loading')} />;
  else if (query.isError && isApiError(query.error) && query.error.code === 'not_found') body = <Banner variant="error">{t('help.notFound')}</Banner>;
  else if (query.isError) body = <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  else
    body = (
      // The HTML is ours (docs/help/*.md rendered by the server), not user content.
      <div className="help__article" onClick={onClick} dangerouslySetInnerHTML={{ __html: query.data.html }} data-testid="help-article" />
    );

  return (
    <>
      <p>
        <Link to="/help" className="help__back">
          {t('help.back')}
        </Link>
      </p>
      {body}
      <p className="help__ask">{t('help.askAssistant')}</p>
    </>
  );
}
