import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CreativeUploadPanel } from '@/features/creatives/components/creative-upload-panel';
import { CreativesGrid } from '@/features/creatives/components/creatives-grid';
import { NewCreativeButton } from '@/features/creatives/components/new-creative-button';

const PANEL_ID = 'creative-upload';

export default function CreativesRoute() {
  const { t } = useTranslation();
  const [uploading, setUploading] = useState(false);
  return (
    <ContentLayout
      title={t('creatives.title')}
      actions={<NewCreativeButton onClick={() => setUploading(true)} expanded={uploading} controls={PANEL_ID} />}
    >
      {uploading ? <CreativeUploadPanel id={PANEL_ID} onClose={() => setUploading(false)} /> : null}
      <CreativesGrid />
    </ContentLayout>
  );
}
