import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog, Dialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { formatDate } from '@/lib/dates';

import type { AuthErrorKey } from '../../api/auth-actions';
import {
  accountKeys,
  challenge,
  challengeAndVerify,
  enrollPhone,
  enrollTotp,
  factorsQuery,
  normalisePhone,
  STALE_CHALLENGE,
  unenroll,
  verify,
  type AnyFactor,
  type TotpEnrolment,
} from '../../api/mfa';
import { recoveryCodesQuery } from '../../api/security';
import { CodeInput } from '../code-input';
import { maskPhone } from '../factor-label';

import { RecoveryCodes } from './recovery-codes';

type Notice = 'account.mfa.totpAdded' | 'account.mfa.phoneAdded' | 'account.mfa.removed';

/**
 * Two-step verification: the factors, adding an authenticator app or a phone, removing one, and
 * the recovery codes once a method is active (offered at once after an app is added).
 */
export function MfaSection() {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const queryClient = useQueryClient();
  const factors = useQuery(factorsQuery());
  const [adding, setAdding] = useState<'totp' | 'phone' | null>(null);
  const [removing, setRemoving] = useState<AnyFactor | null>(null);
  const [removeError, setRemoveError] = useState<AuthErrorKey | null>(null);
  const [removePending, setRemovePending] = useState(false);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [codesOpen, setCodesOpen] = useState(false);

  const refresh = () => queryClient.invalidateQueries({ queryKey: accountKeys.all });
  const language = i18n.resolvedLanguage ?? i18n.language;
  const list = (factors.data ?? []) as AnyFactor[];
  const active = list.some((factor) => factor.status === 'verified');

  const remove = async () => {
    if (!removing) return;
    setRemovePending(true);
    setRemoveError(null);
    const result = await unenroll(removing.id);
    setRemovePending(false);
    if (!result.ok) {
      setRemoveError(result.error);
      return;
    }
    setRemoving(null);
    setNotice('account.mfa.removed');
    await refresh();
  };

  const added = async (notice: Notice) => {
    setAdding(null);
    setNotice(notice);
    await refresh();
    // The first app added: its recovery codes are offered at once.
    if (notice !== 'account.mfa.totpAdded') return;
    try {
      const summary = await queryClient.fetchQuery(recoveryCodesQuery());
      if (summary.total === 0) setCodesOpen(true);
    } catch {
      // The section shows the error and the button; nothing to offer now.
    }
  };

  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-mfa">
      <h2 id={titleId} className="panel__title">
        {t('account.mfa.title')}
      </h2>
      <p className="account-section__muted">{active ? t('account.mfa.on') : t('account.mfa.off')}</p>
      {notice ? (
        <Banner variant="info" data-testid="mfa-notice">
          {t(notice)}
        </Banner>
      ) : null}

      {factors.isPending ? <Spinner /> : null}
      {factors.isError ? <QueryError error={factors.error} onRetry={() => void factors.refetch()} /> : null}
      {list.length > 0 ? (
        <ul className="account-list" data-testid="factor-list">
          {list.map((factor) => (
            <li key={factor.id} className="account-list__item factor-row">
              <div className="factor-row__text">
                <span className="account-list__name">
                  {factor.friendly_name || (factor.factor_type === 'phone' ? t('auth.factor.phone') : t('auth.factor.totp'))}
                </span>
                <span className="account-list__meta">
                  {factor.factor_type === 'phone'
                    ? factor.phone
                      ? t('auth.factor.phoneNumber', { phone: maskPhone(factor.phone) })
                      : t('auth.factor.phone')
                    : t('auth.factor.totp')}
                  {' · '}
                  {t('account.mfa.addedOn', { date: formatDate(new Date(factor.created_at), language) })}
                </span>
              </div>
              <span className={factor.status === 'verified' ? 'badge badge--ok' : 'badge'}>
                {factor.status === 'verified' ? t('account.mfa.verified') : t('account.mfa.unverified')}
              </span>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  setNotice(null);
                  setRemoveError(null);
                  setRemoving(factor);
                }}
                aria-label={t('account.mfa.removeNamed', { name: factor.friendly_name ?? '' })}
                data-testid="remove-factor"
              >
                {t('account.mfa.remove')}
              </Button>
            </li>
          ))}
        </ul>
      ) : null}

      <div className="form-actions">
        <Button
          variant="secondary"
          onClick={() => {
            setNotice(null);
            setAdding('totp');
          }}
          data-testid="add-totp"
        >
          {t('account.mfa.addTotp')}
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            setNotice(null);
            setAdding('phone');
          }}
          data-testid="add-phone"
        >
          {t('account.mfa.addPhone')}
        </Button>
      </div>

      {active ? <RecoveryCodes showing={codesOpen} onShowingChange={setCodesOpen} /> : null}

      {adding === 'totp' ? <TotpEnrolDialog onClose={() => setAdding(null)} onDone={() => void added('account.mfa.totpAdded')} /> : null}
      {adding === 'phone' ? (
        <PhoneEnrolDialog onClose={() => setAdding(null)} onDone={() => void added('account.mfa.phoneAdded')} />
      ) : null}
      {removing ? (
        <ConfirmDialog
          title={t('account.mfa.removeTitle')}
          confirmLabel={t('account.mfa.remove')}
          busy={removePending}
          error={removeError ? t(removeError) : null}
          onConfirm={() => void remove()}
          onCancel={() => setRemoving(null)}
        >
          <p>{t('account.mfa.removeBody', { name: removing.friendly_name || t('auth.factor.totp') })}</p>
          {removing.status === 'verified' && list.filter((f) => f.status === 'verified').length === 1 ? (
            <p>{t('account.mfa.removeLast')}</p>
          ) : null}
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** Closing an enrolment half done removes the unverified factor (its name would be taken otherwise). */
function abandon(factorId: string | null) {
  if (factorId) void unenroll(factorId);
}

function TotpEnrolDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const ids = { name: useId(), code: useId(), secret: useId() };
  const [name, setName] = useState(() => t('account.mfa.defaultTotpName'));
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [pending, setPending] = useState(false);
  const [copied, setCopied] = useState(false);

  const close = () => {
    abandon(enrolment?.id ?? null);
    onClose();
  };

  const start = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const result = await enrollTotp(name.trim());
    setPending(false);
    if (result.ok) setEnrolment(result.value);
    else setError(result.error);
  };

  const confirm = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!enrolment) return;
    setPending(true);
    setError(null);
    const result = await challengeAndVerify(enrolment.id, code);
    setPending(false);
    if (result.ok) {
      onDone();
      return;
    }
    setCode('');
    setError(result.error);
  };

  const copy = async () => {
    if (!enrolment) return;
    try {
      await navigator.clipboard.writeText(enrolment.secret);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  return (
    <Dialog title={t('account.mfa.totpTitle')} onClose={close} className="enrol-dialog">
      {error ? (
        <Banner variant="error" data-testid="enrol-error">
          {t(error)}
        </Banner>
      ) : null}
      {enrolment ? (
        <form onSubmit={(event) => void confirm(event)} data-testid="totp-enrolment">
          <p>{t('account.mfa.totpScan')}</p>
          <img className="enrol-dialog__qr" src={enrolment.qrCode} alt={t('account.mfa.qrAlt')} width={180} height={180} />
          <p className="field__hint" id={ids.secret}>
            {t('account.mfa.totpManual')}
          </p>
          <div className="secret">
            <code className="secret__value" aria-describedby={ids.secret} data-testid="totp-secret">
              {enrolment.secret}
            </code>
            <Button variant="secondary" size="sm" onClick={() => void copy()} data-testid="copy-secret">
              {copied ? t('account.mfa.copied') : t('account.mfa.copy')}
            </Button>
          </div>
          <div className="field">
            <Label htmlFor={ids.code}>{t('auth.mfa.code')}</Label>
            <CodeInput id={ids.code} value={code} onChange={setCode} />
          </div>
          <div className="form-actions">
            <Button type="submit" disabled={pending || code.length !== 6} aria-busy={pending} data-testid="totp-confirm">
              {pending ? t('auth.submitting') : t('account.mfa.activate')}
            </Button>
            <Button variant="secondary" onClick={close}>
              {t('common.cancel')}
            </Button>
          </div>
        </form>
      ) : (
        <form onSubmit={(event) => void start(event)}>
          <p>{t('account.mfa.totpIntro')}</p>
          <div className="field">
            <Label htmlFor={ids.name}>{t('account.mfa.friendlyName')}</Label>
            <Input id={ids.name} required maxLength={60} value={name} onChange={(event) => setName(event.currentTarget.value)} />
            <p className="field__hint">{t('account.mfa.friendlyNameHint')}</p>
          </div>
          <div className="form-actions">
            <Button type="submit" disabled={pending} aria-busy={pending} data-testid="totp-start">
              {pending ? t('auth.submitting') : t('account.mfa.continue')}
            </Button>
            <Button variant="secondary" onClick={close}>
              {t('common.cancel')}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

type SmsMessage = { kind: 'error' | 'info'; key: AuthErrorKey | 'auth.mfa.smsSent' | 'auth.mfa.newSms' };

function PhoneEnrolDialog({ onClose, onDone }: { onClose: () => void; onDone: () => void }) {
  const { t } = useTranslation();
  const ids = { name: useId(), phone: useId(), phoneHint: useId(), code: useId() };
  const [name, setName] = useState(() => t('account.mfa.defaultPhoneName'));
  const [phone, setPhone] = useState('');
  const [factorId, setFactorId] = useState<string | null>(null);
  const [challengeId, setChallengeId] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<SmsMessage | null>(null);
  const [pending, setPending] = useState(false);

  const close = () => {
    abandon(factorId);
    onClose();
  };

  const sendCode = async (id: string, note: SmsMessage = { kind: 'info', key: 'auth.mfa.smsSent' }) => {
    const result = await challenge(id);
    if (result.ok) {
      setChallengeId(result.value);
      setMessage(note);
    } else {
      setMessage({ kind: 'error', key: result.error });
    }
  };

  const start = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const number = normalisePhone(phone);
    if (!number) {
      setMessage({ kind: 'error', key: 'auth.errors.phoneInvalid' });
      return;
    }
    setPending(true);
    setMessage(null);
    const result = await enrollPhone(name.trim(), number);
    if (!result.ok) {
      setPending(false);
      setMessage({ kind: 'error', key: result.error === 'auth.errors.validationFailed' ? 'auth.errors.phoneInvalid' : result.error });
      return;
    }
    setFactorId(result.value);
    await sendCode(result.value);
    setPending(false);
  };

  const confirm = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!factorId) return;
    setPending(true);
    setMessage(null);
    if (!challengeId) {
      await sendCode(factorId);
      setPending(false);
      return;
    }
    const result = await verify(factorId, challengeId, code);
    setPending(false);
    if (result.ok) {
      onDone();
      return;
    }
    setCode('');
    if (result.code && STALE_CHALLENGE.has(result.code)) {
      setChallengeId(null);
      await sendCode(factorId, { kind: 'info', key: 'auth.mfa.newSms' });
      return;
    }
    setMessage({ kind: 'error', key: result.error });
  };

  return (
    <Dialog title={t('account.mfa.phoneTitle')} onClose={close} className="enrol-dialog">
      {message ? (
        <Banner variant={message.kind} data-testid={message.kind === 'error' ? 'enrol-error' : 'enrol-notice'}>
          {t(message.key)}
        </Banner>
      ) : null}
      {factorId ? (
        <form onSubmit={(event) => void confirm(event)} data-testid="phone-enrolment">
          <div className="field">
            <Label htmlFor={ids.code}>{t('auth.mfa.code')}</Label>
            <CodeInput id={ids.code} value={code} onChange={setCode} autoFocus />
          </div>
          <div className="form-actions">
            <Button type="submit" disabled={pending || code.length !== 6} aria-busy={pending} data-testid="phone-confirm">
              {pending ? t('auth.submitting') : t('account.mfa.activate')}
            </Button>
            <Button variant="secondary" onClick={() => void sendCode(factorId)} data-testid="phone-resend">
              {t('auth.mfa.resend')}
            </Button>
            <Button variant="ghost" onClick={close}>
              {t('common.cancel')}
            </Button>
          </div>
        </form>
      ) : (
        <form onSubmit={(event) => void start(event)}>
          <p>{t('account.mfa.phoneIntro')}</p>
          <div className="field">
            <Label htmlFor={ids.name}>{t('account.mfa.friendlyName')}</Label>
            <Input id={ids.name} required maxLength={60} value={name} onChange={(event) => setName(event.currentTarget.value)} />
          </div>
          <div className="field">
            <Label htmlFor={ids.phone}>{t('account.mfa.phoneNumber')}</Label>
            <Input
              id={ids.phone}
              type="tel"
              autoComplete="tel"
              inputMode="tel"
              required
              aria-describedby={ids.phoneHint}
              placeholder={t('account.mfa.phonePlaceholder')}
              value={phone}
              onChange={(event) => setPhone(event.currentTarget.value)}
            />
            <p className="field__hint" id={ids.phoneHint}>
              {t('account.mfa.phoneHint')}
            </p>
          </div>
          <div className="form-actions">
            <Button type="submit" disabled={pending} aria-busy={pending} data-testid="phone-start">
              {pending ? t('auth.submitting') : t('account.mfa.sendCode')}
            </Button>
            <Button variant="secondary" onClick={close}>
              {t('common.cancel')}
            </Button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
