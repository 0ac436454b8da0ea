import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

/** Link to the heatmap creation page, styled as the primary action. */
export function NewHeatmapLink() {
  const { t } = useTranslation();
  return (
    <Link to="/heatmap/new" className="ui-button ui-button--primary ui-button--md" data-testid="new-heatmap">
      {t('heatmap.new')}
    </Link>
  );
}
