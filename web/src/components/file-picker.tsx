import { useId } from 'react';

import { Label } from '@/components/ui/label';
import { cn } from '@/lib/cn';

type FilePickerProps = {
  label: string;
  hint: string;
  accept: string;
  /** The chosen file's name, or null. */
  fileName: string | null;
  /** The button's words ("Choisir un fichier") and what shows before a choice. */
  chooseLabel: string;
  emptyLabel: string;
  disabled: boolean;
  testId: string;
  onChange: (file: File | null) => void;
};

/**
 * A labelled file field whose button and "no file" text are the app's words (a bare file input
 * speaks the browser's language); the real input is kept for keyboards and screen readers.
 */
export function FilePicker({ label, hint, accept, fileName, chooseLabel, emptyLabel, disabled, testId, onChange }: FilePickerProps) {
  const id = useId();
  return (
    <div className="field file-picker">
      <Label htmlFor={id}>{label}</Label>
      <div className="file-picker__row">
        <label htmlFor={id} className={cn('ui-button ui-button--secondary ui-button--sm', disabled && 'is-disabled')} aria-hidden="true">
          {chooseLabel}
        </label>
        <span className={cn('file-picker__name', !fileName && 'file-picker__name--none')}>{fileName ?? emptyLabel}</span>
        <input
          id={id}
          type="file"
          className="visually-hidden"
          accept={accept}
          disabled={disabled}
          aria-describedby={`${id}-hint`}
          data-testid={testId}
          onChange={(event) => onChange(event.target.files?.[0] ?? null)}
        />
      </div>
      <p id={`${id}-hint`} className="field__hint">
        {hint}
      </p>
    </div>
  );
}
