import type { ComponentProps } from 'react';

import { cn } from '@/lib/cn';

export type InputProps = ComponentProps<'input'>;

export function Input({ className, ...props }: InputProps) {
  return <input className={cn('ui-input', className)} {...props} />;
}
