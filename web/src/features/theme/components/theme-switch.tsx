import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';

import { isTheme, THEMES, useThemeStore } from '../theme-store';

/** Chooses light, dark or system theme. */
export function ThemeSwitch() {
  const { t } = useTranslation();
  const id = useId();
  const theme = useThemeStore((state) => state.theme);
  const setTheme = useThemeStore((state) => state.setTheme);
  return (
    <div className="switch">
      <Label htmlFor={id} className="switch__label">
        {t('theme.label')}
      </Label>
      <Select
        id={id}
        data-testid="theme-switch"
        value={theme}
        onChange={(event) => {
          if (isTheme(event.target.value)) setTheme(event.target.value);
        }}
      >
        {THEMES.map((value) => (
          <option key={value} value={value}>
            {t(`theme.${value}`)}
          </option>
        ))}
      </Select>
    </div>
  );
}
