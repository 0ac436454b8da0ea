import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { useHeatmapLiveConnection } from '@/features/heatmap/api/live-updates';
import { HEATMAP_SORTS, type HeatmapSort } from '@/features/heatmap/api/heatmaps';
import { HeatmapList, HeatmapToolbar } from '@/features/heatmap/components/heatmap-list';
import { NewHeatmapLink } from '@/features/heatmap/components/new-heatmap-link';
import { useSearchDraft } from '@/lib/use-search-draft';
import { useWorkspace } from '@/lib/workspace';

export default function HeatmapListRoute() {
  const { t } = useTranslation();
  // Statuses and scores of heatmaps still running update live.
  useHeatmapLiveConnection();
  // The search and order live in the address (?q=&sort=): reload, back and links keep them.
  const [params, setParams] = useSearchParams();
  const raw = params.get('sort') ?? '';
  const sort: HeatmapSort = (HEATMAP_SORTS as readonly string[]).includes(raw) ? (raw as HeatmapSort) : 'newest';
  const { q, draft, setDraft } = useSearchDraft();
  const { canEdit } = useWorkspace();
  const onSort = (next: HeatmapSort) =>
    setParams(
      (current) => {
        const copy = new URLSearchParams(current);
        if (next === 'newest') copy.delete('sort');
        else copy.set('sort', next);
        return copy;
      },
      { replace: true },
    );
  return (
    <ContentLayout title={t('heatmap.listTitle')} actions={canEdit ? <NewHeatmapLink /> : null}>
      <HeatmapList
        q={q.trim()}
        sort={sort}
        typing={draft.trim() !== ''}
        toolbar={<HeatmapToolbar draft={draft} onDraft={setDraft} sort={sort} onSort={onSort} />}
        onClearSearch={() => setDraft('')}
      />
    </ContentLayout>
  );
}
