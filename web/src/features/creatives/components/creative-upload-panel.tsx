import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { DropZone } from '@/components/drop-zone';
import { Button } from '@/components/ui/button';
import { UploadList } from '@/components/upload-list';
import { uploadMedia } from '@/lib/api';
import { errorInfo } from '@/lib/error-message';
import { applyToItem, initialUploadState, type UploadEvent, type UploadItem } from '@/lib/upload-machine';

import { createCreative, creativeKeys } from '../api/creatives';

/** Files uploaded at the same time (the server ingests two at a time by default). */
const CONCURRENCY = 2;

type Job = { id: string; file: File };

let nextId = 0;

/**
 * The upload panel of the creatives page: every file dropped or picked goes
 * through `queued → uploading → creating → done | failed`; each success creates
 * a creative (named after the file by the server) and refreshes the grid. A
 * failure shows its translated error beside the file and the others continue.
 * Closing the panel does not cancel uploads in progress: they finish and their
 * creatives appear in the grid.
 */
export function CreativeUploadPanel({ id, onClose }: { id?: string; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [items, setItems] = useState<UploadItem[]>([]);
  const queue = useRef<Job[]>([]);
  const running = useRef(0);

  const titleRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    // Opening the panel takes the focus there, so keyboard users land on the drop zone's file button next.
    titleRef.current?.focus();
  }, []);

  const dispatch = (itemId: string, event: UploadEvent) => setItems((current) => applyToItem(current, itemId, event));

  const runJob = async ({ id: itemId, file }: Job) => {
    dispatch(itemId, { type: 'start' });
    try {
      const media = await uploadMedia(file, {
        onProgress: (loaded, total) => dispatch(itemId, { type: 'progress', loaded, total }),
      });
      dispatch(itemId, { type: 'uploaded' });
      const creative = await createCreative(media.id);
      dispatch(itemId, { type: 'created', resultId: creative.id, size: { width: media.width, height: media.height } });
      void queryClient.invalidateQueries({ queryKey: creativeKeys.all });
    } catch (error) {
      dispatch(itemId, { type: 'fail', ...errorInfo(error) });
    }
  };

  const pump = () => {
    while (running.current < CONCURRENCY && queue.current.length > 0) {
      const job = queue.current.shift()!;
      running.current += 1;
      void runJob(job).finally(() => {
        running.current -= 1;
        pump();
      });
    }
  };

  const addFiles = (files: File[]) => {
    const jobs = files.map((file) => ({ id: `upload-${++nextId}`, file }));
    setItems((current) => [
      ...current,
      ...jobs.map(({ id: itemId, file }) => ({ id: itemId, name: file.name, size: file.size, state: initialUploadState })),
    ]);
    queue.current.push(...jobs);
    pump();
  };

  return (
    <section id={id} className="panel upload-panel" aria-labelledby={`${id ?? 'upload'}-title`} data-testid="upload-panel">
      <header className="panel__header">
        <h2 ref={titleRef} id={`${id ?? 'upload'}-title`} className="panel__title" tabIndex={-1}>
          {t('creatives.uploadTitle')}
        </h2>
        <Button variant="ghost" size="sm" onClick={onClose}>
          {t('common.close')}
        </Button>
      </header>
      <DropZone onFiles={addFiles} />
      <UploadList items={items} />
    </section>
  );
}
