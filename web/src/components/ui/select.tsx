import type { ComponentProps } from 'react';

import { cn } from '@/lib/cn';

/** A native select: keyboard and screen-reader support come for free. */
export function Select({ className, ...props }: ComponentProps<'select'>) {
  return <select className={cn('ui-select', className)} {...props} />;
}
