import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';

import { signOut, type AuthErrorKey } from '../api/auth-actions';
import { challenge, factorsQuery, STALE_CHALLENGE, verify, type AnyFactor } from '../api/mfa';
import { normaliseRecoveryCode } from '../api/security';

import { CodeInput } from './code-input';
import { useFactorLabel } from './factor-label';

type Message = { kind: 'error' | 'info'; key: AuthErrorKey | 'auth.mfa.newChallenge' | 'auth.mfa.newSms' | 'auth.mfa.smsSent' };

/**
 * The second step after a password or provider sign-in, before any page: a
 * code from the authenticator app or from an SMS. With several factors the
 * user picks one; an SMS can be sent again. An expired challenge is replaced
 * by a new one at once (and the user told); cancelling signs out. A recovery code (account page)
 * can stand in for the code, once each, when the phone is lost.
 */
export function MfaChallenge() {
  const { t } = useTranslation();
  const ids = { title: useId(), code: useId(), factor: useId() };
  const factorLabel = useFactorLabel();
  const factors = useQuery(factorsQuery());
  const verified = (factors.data ?? []).filter((factor) => factor.status === 'verified') as AnyFactor[];
  // The authenticator app first: choosing it sends no SMS.
  const ordered = [...verified].sort((a, b) => Number(a.factor_type !== 'totp') - Number(b.factor_type !== 'totp'));
  const [chosenId, setChosenId] = useState<string | null>(null);
  const factor = ordered.find((f) => f.id === chosenId) ?? ordered[0];
  const [challengeId, setChallengeId] = useState<{ factorId: string; id: string } | null>(null);
  const [code, setCode] = useState('');
  const [recovery, setRecovery] = useState(false);
  const [message, setMessage] = useState<Message | null>(null);
  const [pending, setPending] = useState(false);
  const [cancelling, setCancelling] = useState(false);
  // One automatic challenge per factor (React may run effects twice in development: no second SMS).
  const challenged = useRef(new Set<string>());

  const startChallenge = async (target: AnyFactor, after?: Message) => {
    const result = await challenge(target.id);
    if (result.ok) {
      setChallengeId({ factorId: target.id, id: result.value });
      setMessage(after ?? (target.factor_type === 'phone' ? { kind: 'info', key: 'auth.mfa.smsSent' } : null));
    } else {
      setMessage({ kind: 'error', key: result.error });
    }
    return result.ok;
  };

  const factorId = factor?.id;
  useEffect(() => {
    if (!factor || challenged.current.has(factor.id)) return;
    challenged.current.add(factor.id);
    void startChallenge(factor);
    // startChallenge only reads the factor given; run once per factor.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [factorId]);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!factor || pending) return;
    if (recovery ? normaliseRecoveryCode(code) === null : !/^\d{6}$/.test(code)) {
      setMessage({ kind: 'error', key: recovery ? 'auth.errors.recoveryCodeFormat' : 'auth.errors.mfaVerificationFailed' });
      return;
    }
    setPending(true);
    setMessage(null);
    let current = challengeId?.factorId === factor.id ? challengeId.id : null;
    if (!current) {
      const result = await challenge(factor.id);
      if (!result.ok) {
        setPending(false);
        setMessage({ kind: 'error', key: result.error });
        return;
      }
      current = result.value;
      setChallengeId({ factorId: factor.id, id: current });
    }
    const result = await verify(factor.id, current, code);
    if (result.ok) return; // auth-js announces the aal2 session; the app replaces this screen.
    setPending(false);
    setCode('');
    if (result.code && STALE_CHALLENGE.has(result.code)) {
      // The challenge is over (5 minutes): start another and say so. An SMS factor gets a new code.
      setChallengeId(null);
      const note: Message = { kind: 'info', key: factor.factor_type === 'phone' ? 'auth.mfa.newSms' : 'auth.mfa.newChallenge' };
      await startChallenge(factor, note);
      return;
    }
    setMessage({ kind: 'error', key: result.error });
  };

  const resend = async () => {
    if (!factor) return;
    setMessage(null);
    await startChallenge(factor, { kind: 'info', key: 'auth.mfa.smsSent' });
  };

  const cancel = async () => {
    setCancelling(true);
    // Only this device's session: the user's other devices stay signed in.
    await signOut('local');
  };

  if (factors.isPending) return <Spinner />;

  const isPhone = factor?.factor_type === 'phone';
  return (
    <div className="auth-form" data-testid="mfa-challenge">
      <h1 id={ids.title} className="auth-form__title">
        {t('auth.mfa.title')}
      </h1>
      <p className="auth-form__intro">
        {recovery ? t('auth.mfa.introRecovery') : isPhone ? t('auth.mfa.introSms') : t('auth.mfa.introTotp')}
      </p>

      {factors.isError || (factors.isSuccess && !factor) ? (
        <Banner variant="error">{t('auth.errors.generic')}</Banner>
      ) : null}
      {message ? (
        <Banner variant={message.kind} data-testid={message.kind === 'error' ? 'mfa-error' : 'mfa-notice'}>
          {t(message.key)}
        </Banner>
      ) : null}

      <form aria-labelledby={ids.title} onSubmit={(event) => void onSubmit(event)}>
        {ordered.length > 1 ? (
          <fieldset className="field factor-choice">
            <legend className="ui-label">{t('auth.mfa.chooseFactor')}</legend>
            {ordered.map((option) => (
              <label key={option.id} className="factor-choice__option">
                <input
                  type="radio"
                  name="factor"
                  value={option.id}
                  checked={option.id === factor?.id}
                  onChange={() => {
                    setChosenId(option.id);
                    setCode('');
                    setMessage(null);
                  }}
                />
                <span>{factorLabel(option)}</span>
              </label>
            ))}
          </fieldset>
        ) : null}
        {recovery ? (
          <div className="field">
            <Label htmlFor={ids.code}>{t('auth.mfa.recoveryCode')}</Label>
            <Input
              id={ids.code}
              name="recovery-code"
              className="code-input"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              maxLength={20}
              required
              autoFocus
              placeholder={t('auth.mfa.recoveryPlaceholder')}
              value={code}
              onChange={(event) => setCode(event.currentTarget.value)}
              data-testid="mfa-recovery-code"
            />
          </div>
        ) : (
          <div className="field">
            <Label htmlFor={ids.code}>{t('auth.mfa.code')}</Label>
            <CodeInput id={ids.code} value={code} onChange={setCode} autoFocus />
          </div>
        )}
        <Button type="submit" className="auth-form__submit" disabled={pending || !factor} aria-busy={pending} data-testid="mfa-submit">
          {pending ? t('auth.submitting') : t('auth.mfa.submit')}
        </Button>
      </form>

      <p className="auth-form__switch auth-form__actions">
        <Button
          variant="link"
          onClick={() => {
            setRecovery(!recovery);
            setCode('');
            setMessage(null);
          }}
          data-testid="mfa-use-recovery"
        >
          {recovery ? t('auth.mfa.useCode') : t('auth.mfa.useRecovery')}
        </Button>
        {isPhone && !recovery ? (
          <Button variant="link" onClick={() => void resend()} data-testid="mfa-resend">
            {t('auth.mfa.resend')}
          </Button>
        ) : null}
        <Button variant="link" onClick={() => void cancel()} disabled={cancelling} data-testid="mfa-cancel">
          {t('auth.mfa.cancel')}
        </Button>
      </p>
    </div>
  );
}
