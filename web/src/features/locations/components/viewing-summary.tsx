import { useTranslation } from 'react-i18next';

import type { Viewing } from '../lib/viewing';

/** Time in view of the panel's main text: the figure a planner looks for, then how it is reached. */
export function ViewingSummary({ viewing }: { viewing: Viewing | null }) {
  const { t, i18n } = useTranslation();
  if (viewing === null) {
    return (
      <p className="field__hint" data-testid="viewing-summary">
        {t('locations.viewing.missing')}
      </p>
    );
  }
  const number = (value: number, digits: number) =>
    value.toLocaleString(i18n.language, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return (
    <div className="viewing-summary" role="status" data-testid="viewing-summary">
      <p className="viewing-summary__figure">
        {t('locations.viewing.timeInView', { seconds: number(viewing.timeInViewS, 1) })}
      </p>
      <p className="field__hint">
        {t('locations.viewing.explain', {
          letter: number(viewing.letterMm, 0),
          distance: number(viewing.legibleDistanceM, 0),
          comfortable: number(viewing.comfortableDistanceM, 0),
          speed: number(viewing.speedKmh, 0),
        })}
      </p>
    </div>
  );
}
