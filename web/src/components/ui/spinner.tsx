import { useTranslation } from 'react-i18next';

import { cn } from '@/lib/cn';

export type SpinnerProps = {
  size?: 'sm' | 'md' | 'lg';
  /** Accessible name; defaults to the translated "Loading…". */
  label?: string;
  className?: string;
};

export function Spinner({ size = 'md', label, className }: SpinnerProps) {
  const { t } = useTranslation();
  return (
    <span role="status" className={cn('ui-spinner', `ui-spinner--${size}`, className)}>
      <span className="ui-spinner__circle" aria-hidden="true" />
      <span className="visually-hidden">{label ?? t('app.loading')}</span>
    </span>
  );
}

/** Fills the viewport; shown while the session is being determined. */
export function FullScreenSpinner() {
  return (
    <div className="full-screen-center" data-testid="full-screen-spinner">
      <Spinner size="lg" />
    </div>
  );
}

/** Fills the content area; shown while a lazily loaded page arrives. */
export function PageSpinner() {
  return (
    <div className="page-spinner" data-testid="page-spinner">
      <Spinner />
    </div>
  );
}
