import { Input } from '@/components/ui/input';

/** A 6-digit one-time code: digits only, the phone's keypad, the code from an SMS offered by the OS. */
export function CodeInput({
  id,
  value,
  onChange,
  autoFocus,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  autoFocus?: boolean;
}) {
  return (
    <Input
      id={id}
      name="code"
      className="code-input"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]{6}"
      maxLength={6}
      required
      autoFocus={autoFocus}
      value={value}
      onChange={(event) => onChange(event.currentTarget.value.replace(/\D/g, '').slice(0, 6))}
      data-testid="mfa-code"
    />
  );
}
