import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { Input } from '@/components/ui/input';

export type LocationSearchProps = {
  value: string;
  onChange: (value: string) => void;
};

/** The search field of the locations list. */
export function LocationSearch({ value, onChange }: LocationSearchProps) {
  const { t } = useTranslation();
  const id = useId();
  return (
    <div className="search" role="search">
      <label htmlFor={id} className="visually-hidden">
        {t('locations.searchLabel')}
      </label>
      <Input
        id={id}
        type="search"
        placeholder={t('locations.searchPlaceholder')}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        data-testid="location-search"
        autoComplete="off"
      />
    </div>
  );
}
