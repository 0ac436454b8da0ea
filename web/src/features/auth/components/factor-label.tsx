import { useTranslation } from 'react-i18next';

import type { AnyFactor } from '../api/mfa';

/** "+33 •••• 78": enough of a number to recognise it (country code, last two digits), not all of it. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  return digits.length <= 6 ? phone : `+${digits.slice(0, 2)} •••• ${digits.slice(-2)}`;
}

/** How a factor is named to its owner: its friendly name, else its kind (and masked number). */
export function useFactorLabel() {
  const { t } = useTranslation();
  return (factor: AnyFactor) => {
    const kind =
      factor.factor_type === 'phone'
        ? factor.phone
          ? t('auth.factor.phoneNumber', { phone: maskPhone(factor.phone) })
          : t('auth.factor.phone')
        : t('auth.factor.totp');
    return factor.friendly_name ? `${factor.friendly_name} (${kind})` : kind;
  };
}
