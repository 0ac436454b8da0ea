import { useId, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';

export const IMAGE_ACCEPT = 'image/jpeg,image/png,image/webp';

export type DropZoneProps = {
  onFiles: (files: File[]) => void;
  multiple?: boolean;
  disabled?: boolean;
  /** Text of the file button; defaults to "Choose files". */
  buttonLabel?: string;
  testId?: string;
};

/**
 * Drag-and-drop area plus a real file input (keyboard and screen-reader
 * users get the labelled input; the drop area is a convenience). The server
 * decides what an image is (by its bytes), so no file is filtered here.
 */
export function DropZone({ onFiles, multiple = true, disabled, buttonLabel, testId = 'drop-zone' }: DropZoneProps) {
  const { t } = useTranslation();
  const inputId = useId();
  const hintId = useId();
  const [over, setOver] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  const hasFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setOver(false);
    if (disabled) return;
    const files = Array.from(event.dataTransfer?.files ?? []);
    if (files.length > 0) onFiles(multiple ? files : files.slice(0, 1));
  };

  return (
    <div
      className={cn('drop-zone', over && 'drop-zone--over', disabled && 'drop-zone--disabled')}
      data-testid={testId}
      onDragEnter={(event) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        setOver(true);
      }}
      onDragOver={(event) => {
        if (!hasFiles(event)) return;
        event.preventDefault();
        event.dataTransfer.dropEffect = 'copy';
      }}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setOver(false);
      }}
      onDrop={onDrop}
    >
      <p className="drop-zone__text">{t('upload.dropZone')}</p>
      <p className="drop-zone__or">{t('upload.or')}</p>
      <label htmlFor={inputId} className={cn('ui-button ui-button--secondary ui-button--md', disabled && 'is-disabled')}>
        {buttonLabel ?? t('upload.chooseFiles')}
      </label>
      <input
        ref={inputRef}
        id={inputId}
        type="file"
        className="visually-hidden drop-zone__input"
        accept={IMAGE_ACCEPT}
        multiple={multiple}
        disabled={disabled}
        aria-describedby={hintId}
        data-testid={`${testId}-input`}
        onChange={(event) => {
          const files = Array.from(event.target.files ?? []);
          if (files.length > 0) onFiles(files);
          // The same file can be picked again after a failure.
          if (inputRef.current) inputRef.current.value = '';
        }}
      />
      <p id={hintId} className="drop-zone__hint">
        {t('upload.hint')}
      </p>
    </div>
  );
}
