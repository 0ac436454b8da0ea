import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Spinner } from '@/components/ui/spinner';

import { helpLanguage, helpListQueryOptions } from '../api/help';

/** The list of help articles, in the interface's language. */
export function HelpIndex() {
  const { t, i18n } = useTranslation();
  const query = useQuery(helpListQueryOptions(helpLanguage(i18n.language)));
  if (query.isPending) return <Spinner label={t('app.loading')} />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  return (
    <>
      <p className="help__intro">{t('help.intro')}</p>
      <ul className="help__list" aria-label={t('help.listLabel')} data-testid="help-list">
        {query.data.items.map((article) => (
          <li key={article.slug} className="help__card">
            <Link to={`/help/${article.slug}`} className="help__card-link">
              {article.title}
            </Link>
            <p className="help__card-summary">{article.summary}</p>
          </li>
        ))}
      </ul>
    </>
  );
}
