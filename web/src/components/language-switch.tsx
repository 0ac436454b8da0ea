import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { Label } from '@/components/ui/label';
import { Select } from '@/components/ui/select';
import { changeLanguage, isLanguage, SUPPORTED_LANGUAGES } from '@/lib/i18n';

/** Chooses the interface language; the choice is kept in localStorage. */
export function LanguageSwitch() {
  const { t, i18n } = useTranslation();
  const id = useId();
  return (
    <div className="switch">
      <Label htmlFor={id} className="switch__label">
        {t('language.label')}
      </Label>
      <Select
        id={id}
        data-testid="language-switch"
        value={i18n.resolvedLanguage ?? i18n.language}
        onChange={(event) => {
          if (isLanguage(event.target.value)) void changeLanguage(event.target.value);
        }}
      >
        {SUPPORTED_LANGUAGES.map((language) => (
          <option key={language} value={language} lang={language}>
            {t(`language.${language}`)}
          </option>
        ))}
      </Select>
    </div>
  );
}
