//! The workspace's campaign plans, newest first: each with its period, status and totals.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

import { plansQueryOptions } from '../api/plans';
import { formatCount, formatDay } from '../lib/format';

export function PlansList() {
  const { t, i18n } = useTranslation();
  const query = useInfiniteQuery(plansQueryOptions());
  if (query.isPending) return <Spinner />;
  if (query.isError) return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  const plans = query.data.pages.flatMap((page) => page.items);
  if (plans.length === 0) {
    return (
      <p className="empty-state" role="status">
        {t('plans.empty')}
      </p>
    );
  }
  const lang = i18n.language;
  return (
    <>
      <ul className="plan-cards" aria-label={t('plans.listLabel')} data-testid="plans-list">
        {plans.map((plan) => (
          <li key={plan.id} className="plan-card" data-testid="plan-card">
            <Link to={`/plans/${encodeURIComponent(plan.id)}`} className="plan-card__link">
              {plan.creative ? <img className="plan-card__image" src={plan.creative.urls.thumbnail} alt="" width={plan.creative.width} height={plan.creative.height} loading="lazy" /> : null}
              <span className="plan-card__body">
                <span className="plan-card__name">{plan.name}</span>
                <span className="plan-card__meta">{t('plans.period', { start: formatDay(plan.start_date, lang), end: formatDay(plan.end_date, lang), count: plan.totals.days })}</span>
                <span className="plan-card__meta">
                  {t('plans.cardTotals', {
                    count: plan.totals.locations,
                    locations: formatCount(plan.totals.locations, lang),
                    contacts: formatCount(plan.totals.contacts, lang),
                  })}
                  {plan.totals.noticed === null || plan.totals.noticed === undefined ? '' : ` · ${t('plans.cardNoticed', { noticed: formatCount(plan.totals.noticed, lang) })}`}
                </span>
                <span className={`badge plan-status plan-status--${plan.status}`}>{t(`plans.status.${plan.status}`)}</span>
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {query.hasNextPage ? (
        <Button variant="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {t('common.loadMore')}
        </Button>
      ) : null}
    </>
  );
}
