import { MIN_PASSWORD_LENGTH } from '@/config/constants';

/** Runs the fields' checks (a value set without typing skips `minlength`) and reports the first problem. */
export function checkNewPassword(form: HTMLFormElement, minMessage: string, differMessage: string): boolean {
  const password = form.elements.namedItem('new-password');
  const confirm = form.elements.namedItem('confirm-password');
  if (password instanceof HTMLInputElement && password.value.length > 0 && password.value.length < MIN_PASSWORD_LENGTH) {
    password.setCustomValidity(minMessage);
  }
  if (password instanceof HTMLInputElement && confirm instanceof HTMLInputElement && confirm.value !== '' && confirm.value !== password.value) {
    confirm.setCustomValidity(differMessage);
  }
  if (form.checkValidity()) return true;
  form.reportValidity();
  return false;
}
