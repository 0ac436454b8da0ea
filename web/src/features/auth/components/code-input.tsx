import type { Ref } from 'react';

import { Input } from '@/components/ui/input';

/** A 6-digit one-time code: digits only, the phone's keypad, the code from an SMS offered by the OS. */
export function CodeInput({
  id,
  value,
  onChange,
  autoFocus,
  invalidMessage,
  describedBy,
  testId = 'mfa-code',
  ref,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  autoFocus?: boolean;
  /** The message when the field is empty or short, in the app's language (not the browser's). */
  invalidMessage?: string;
  describedBy?: string;
  testId?: string;
  ref?: Ref<HTMLInputElement>;
}) {
  return (
    <Input
      ref={ref}
      id={id}
      name="code"
      className="code-input"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      autoFocus={autoFocus}
      aria-describedby={describedBy}
      value={value}
      // Set only while the field is reported invalid, cleared on the next edit.
      onInvalid={invalidMessage ? (event) => event.currentTarget.setCustomValidity(invalidMessage) : undefined}
      onChange={(event) => {
        event.currentTarget.setCustomValidity('');
        onChange(event.currentTarget.value.replace(/\D/g, '').slice(0, 6));
      }}
      data-testid={testId}
    />
  );
}
