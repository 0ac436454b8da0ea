import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { usePopover } from '@/lib/use-popover';
import { safeFileName, useDownloadFile } from '@/lib/download';

import { imageExportPath, reportPath } from '../api/exports';
import type { ViewState } from '../lib/view-state';
import { DownloadError } from './download-error';

type ExportMenuProps = {
  heatmapId: string;
  itemId: string;
  /** The image's name, for the files' names. */
  name: string;
  /** What the viewer shows: the PNG of the shown view uses its opacity. */
  view: ViewState;
  /** Whether the viewer draws the markers (the exports draw the same). */
  markers: boolean;
  /** Whether the result has a first glance (the images then draw the map shown). */
  glance?: boolean;
};

/**
 * "Exporter": files made on the server from this result, to hand to a client: the view on screen
 * (heatmap or fog at its opacity) as PNG, the original, heatmap and fog side by side as PNG, and
 * this image's PDF report.
 */
export function ExportMenu({ heatmapId, itemId, name, view, markers, glance = false }: ExportMenuProps) {
  const { t, i18n } = useTranslation();
  const menuId = useId();
  const { open, toggle, close, rootRef, buttonRef } = usePopover<HTMLDivElement>();
  const download = useDownloadFile();
  const base = safeFileName(name);
  const shown = view.mode === 'fog' ? 'fog' : 'overlay';
  // The images draw the map on screen; their names say when it is the first glance's.
  const map = glance && view.moment === 'glance' ? 'glance' : 'exploration';
  const suffix = map === 'glance' ? `-${t('heatmap.export.glanceFile')}` : '';
  const entries = [
    {
      key: 'view',
      label: t(view.mode === 'fog' ? 'heatmap.export.fogPng' : 'heatmap.export.heatmapPng', { opacity: view.opacity }),
      path: imageExportPath(heatmapId, itemId, shown, view.opacity / 100, markers, map, i18n.language),
      file: `${base}-${shown === 'fog' ? t('heatmap.export.fogFile') : 'heatmap'}${suffix}.png`,
    },
    {
      key: 'side_by_side',
      label: t('heatmap.export.sideBySide'),
      path: imageExportPath(heatmapId, itemId, 'side_by_side', undefined, markers, map, i18n.language),
      file: `${base}-${t('heatmap.export.sideBySideFile')}${suffix}.png`,
    },
    {
      key: 'pdf',
      label: t('heatmap.export.pdf'),
      path: reportPath(heatmapId, i18n.language, [itemId]),
      file: `${base}.pdf`,
    },
  ];
  return (
    <div className="hm-export" ref={rootRef}>
      <button
        ref={buttonRef}
        type="button"
        className="ui-button ui-button--ghost ui-button--sm"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={toggle}
        disabled={download.isPending}
        data-testid="export-menu"
      >
        {download.isPending ? t('heatmap.export.preparing') : t('heatmap.export.button')}
      </button>
      <div id={menuId} className="hm-export__panel" hidden={!open}>
        {entries.map((entry) => (
          <button
            key={entry.key}
            type="button"
            className="hm-export__item"
            data-testid={`export-${entry.key}`}
            onClick={() => {
              close();
              download.mutate({ path: entry.path, fileName: entry.file });
            }}
          >
            {entry.label}
          </button>
        ))}
      </div>
      <DownloadError error={download.isError ? download.error : null} />
    </div>
  );
}
