import { useId } from 'react';

import { Input } from './input';

type ToolbarSearchProps = {
  label: string;
  placeholder: string;
  /** The field's text as typed (the list follows it once typing pauses: `useSearchDraft`). */
  value: string;
  onChange: (value: string) => void;
  testId: string;
};

/** The search field of a library's toolbar (`library-toolbar`): a labelled search input. */
export function ToolbarSearch({ label, placeholder, value, onChange, testId }: ToolbarSearchProps) {
  const id = useId();
  return (
    <div className="library-toolbar__field library-toolbar__search">
      <label htmlFor={id} className="library-toolbar__label">
        {label}
      </label>
      <Input
        id={id}
        type="search"
        placeholder={placeholder}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        autoComplete="off"
        data-testid={testId}
      />
    </div>
  );
}
