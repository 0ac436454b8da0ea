import { useId, useState, type ChangeEvent, type InvalidEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';

/**
 * A new password and its confirmation, with translated validity messages
 * (required, at least 6 characters, both the same). The form reads the value
 * through `onChange`.
 */
export function NewPasswordFields({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { t } = useTranslation();
  const ids = { password: useId(), confirm: useId(), hint: useId() };
  const [confirm, setConfirm] = useState('');

  const passwordMessage = (input: HTMLInputElement) =>
    input.value === ''
      ? t('auth.validation.passwordRequired')
      : input.value.length < MIN_PASSWORD_LENGTH
        ? t('auth.validation.passwordTooShort', { count: MIN_PASSWORD_LENGTH })
        : '';
  const confirmMessage = (input: HTMLInputElement, password: string) =>
    input.value === '' ? t('auth.validation.confirmRequired') : input.value !== password ? t('auth.validation.passwordsDiffer') : '';

  // Checked on every change so that submitting runs the browser's validation with our messages.
  const onPassword = (event: ChangeEvent<HTMLInputElement>) => {
    const next = event.currentTarget.value;
    event.currentTarget.setCustomValidity(passwordMessage(event.currentTarget));
    const confirmInput = event.currentTarget.form?.elements.namedItem('confirm-password');
    if (confirmInput instanceof HTMLInputElement && confirmInput.value !== '') {
      confirmInput.setCustomValidity(confirmMessage(confirmInput, next));
    }
    onChange(next);
  };
  const onConfirm = (event: ChangeEvent<HTMLInputElement>) => {
    event.currentTarget.setCustomValidity(confirmMessage(event.currentTarget, value));
    setConfirm(event.currentTarget.value);
  };
  const onInvalid = (event: InvalidEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    input.setCustomValidity(input.name === 'confirm-password' ? confirmMessage(input, value) : passwordMessage(input));
  };

  return (
    <>
      <div className="field">
        <Label htmlFor={ids.password}>{t('auth.newPassword')}</Label>
        <Input
          id={ids.password}
          name="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={MIN_PASSWORD_LENGTH}
          aria-describedby={ids.hint}
          value={value}
          onChange={onPassword}
          onInvalid={onInvalid}
        />
        <p id={ids.hint} className="field__hint">
          {t('auth.passwordHint')}
        </p>
      </div>
      <div className="field">
        <Label htmlFor={ids.confirm}>{t('auth.confirmPassword')}</Label>
        <Input
          id={ids.confirm}
          name="confirm-password"
          type="password"
          autoComplete="new-password"
          required
          value={confirm}
          onChange={onConfirm}
          onInvalid={onInvalid}
        />
      </div>
    </>
  );
}
