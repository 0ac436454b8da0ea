import type { ComponentProps } from 'react';

import { cn } from '@/lib/cn';

export type BannerProps = ComponentProps<'div'> & {
  variant?: 'error' | 'info' | 'warning';
};

/**
 * A message strip. Errors use role="alert" so screen readers announce them at
 * once; information and warnings use role="status" (polite).
 */
export function Banner({ variant = 'info', className, ...props }: BannerProps) {
  return (
    <div
      role={variant === 'error' ? 'alert' : 'status'}
      className={cn('ui-banner', `ui-banner--${variant}`, className)}
      {...props}
    />
  );
}
