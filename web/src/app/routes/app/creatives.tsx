import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CREATIVE_SORTS, type CreativeFilters, type CreativeSort } from '@/features/creatives/api/creatives';
import { CreativeUploadPanel } from '@/features/creatives/components/creative-upload-panel';
import { CreativesGrid } from '@/features/creatives/components/creatives-grid';
import { CreativesToolbar } from '@/features/creatives/components/creatives-toolbar';
import { NewCreativeButton } from '@/features/creatives/components/new-creative-button';
import { useSearchDraft } from '@/lib/use-search-draft';
import { useWorkspace } from '@/lib/workspace';

const PANEL_ID = 'creative-upload';

/** The library's filters and order live in the URL (?q=&brand=&campaign=&sort=): reload, back and links keep them. */
function readFilters(params: URLSearchParams): CreativeFilters {
  const sort = params.get('sort') ?? '';
  return {
    q: params.get('q') ?? '',
    brand: params.get('brand') ?? '',
    campaign: params.get('campaign') ?? '',
    sort: (CREATIVE_SORTS as readonly string[]).includes(sort) ? (sort as CreativeSort) : 'newest',
  };
}

export default function CreativesRoute() {
  const { t } = useTranslation();
  const [uploading, setUploading] = useState(false);
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const { draft, setDraft } = useSearchDraft();
  const { canEdit } = useWorkspace();

  const change = (patch: Partial<CreativeFilters>) => {
    if (patch.q !== undefined) setDraft(patch.q);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(patch)) {
          if (value && !(key === 'sort' && value === 'newest')) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true, preventScrollReset: true },
    );
  };

  return (
    <ContentLayout
      title={t('creatives.title')}
      actions={canEdit ? <NewCreativeButton onClick={() => setUploading(true)} expanded={uploading} controls={PANEL_ID} /> : null}
    >
      {uploading && canEdit ? <CreativeUploadPanel id={PANEL_ID} onClose={() => setUploading(false)} /> : null}
      <CreativesToolbar draft={draft} onDraft={setDraft} filters={filters} onChange={change} />
      <CreativesGrid filters={filters} onClear={() => change({ q: '', brand: '', campaign: '' })} />
    </ContentLayout>
  );
}
