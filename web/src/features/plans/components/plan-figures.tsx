//! A plan's totals as figures side by side: sites, days, contacts and the contacts who notice the
//! creative in the first second (waiting for the renders until every site with contacts has them).
import { useTranslation } from 'react-i18next';

import { formatCount } from '../lib/format';

export type PlanFiguresProps = {
  locations: number;
  days: number | null;
  contacts: number | null;
  /** `undefined`: not shown (a plan being made has no renders yet); `null`: waiting for the renders. */
  noticed?: number | null;
};

export function PlanFigures({ locations, days, contacts, noticed }: PlanFiguresProps) {
  const { t, i18n } = useTranslation();
  const dash = '—';
  const figures: Array<[string, string, string]> = [
    ['locations', t('plans.totals.locations'), formatCount(locations, i18n.language)],
    ['days', t('plans.totals.days'), days === null ? dash : formatCount(days, i18n.language)],
    ['contacts', t('plans.totals.contacts'), contacts === null ? dash : formatCount(contacts, i18n.language)],
  ];
  if (noticed !== undefined) {
    figures.push(['noticed', t('plans.totals.noticed'), noticed === null ? t('plans.totals.noticedPending') : formatCount(noticed, i18n.language)]);
  }
  return (
    <dl className="plan-figures" data-testid="plan-figures">
      {figures.map(([key, label, value]) => (
        <div key={key} className="plan-figures__item" data-testid={`plan-total-${key}`}>
          <dt className="plan-figures__label">{label}</dt>
          <dd className={noticed === null && key === 'noticed' ? 'plan-figures__value plan-figures__value--pending' : 'plan-figures__value'}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
