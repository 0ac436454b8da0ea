import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog, Dialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { formatDate } from '@/lib/dates';
import { errorMessage } from '@/lib/error-message';

import { newRecoveryCodes, recoveryCodesFile, recoveryCodesQuery, securityKeys } from '../../api/security';

/** Fewer codes left than this: the section suggests making a new set. */
const LOW = 3;

/**
 * The recovery codes of two-step verification, inside its section once a method is active: how
 * many are left, and a new set (the old one stops working). `showing` (the dialog of a new set)
 * is the section's, which opens it at once after an authenticator app is added to an account
 * without codes.
 */
export function RecoveryCodes({ showing, onShowingChange }: { showing: boolean; onShowingChange: (showing: boolean) => void }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  const summary = useQuery(recoveryCodesQuery());
  const [confirming, setConfirming] = useState(false);
  const setShowing = onShowingChange;

  if (summary.isPending) return <Spinner />;
  if (summary.isError) return <QueryError error={summary.error} onRetry={() => void summary.refetch()} />;
  const { remaining, total, created_at: createdAt } = summary.data;
  return (
    <div className="recovery-codes" data-testid="recovery-codes">
      <h3 className="recovery-codes__title">{t('account.recovery.title')}</h3>
      <p className="account-section__muted">{t('account.recovery.intro')}</p>
      {total === 0 ? (
        <p className="account-section__muted" data-testid="recovery-summary">
          {t('account.recovery.none')}
        </p>
      ) : (
        <p className="account-section__muted" data-testid="recovery-summary">
          {t('account.recovery.remaining', {
            count: remaining,
            total,
            date: createdAt ? formatDate(new Date(createdAt), language) : '',
          })}
        </p>
      )}
      {total > 0 && remaining < LOW ? (
        <Banner variant="error" data-testid="recovery-low">
          {t('account.recovery.low')}
        </Banner>
      ) : null}
      <Button
        variant="secondary"
        onClick={() => (total === 0 ? setShowing(true) : setConfirming(true))}
        data-testid="recovery-generate"
      >
        {total === 0 ? t('account.recovery.generate') : t('account.recovery.regenerate')}
      </Button>
      {confirming ? (
        <ConfirmDialog
          title={t('account.recovery.regenerateTitle')}
          confirmLabel={t('account.recovery.regenerate')}
          onConfirm={() => {
            setConfirming(false);
            setShowing(true);
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>{t('account.recovery.regenerateBody')}</p>
        </ConfirmDialog>
      ) : null}
      {showing ? <NewCodesDialog onClose={() => setShowing(false)} language={language} /> : null}
    </div>
  );
}

/** Makes a new set as it opens and shows it once, with a copy and a text file to keep. */
function NewCodesDialog({ onClose, language }: { onClose: () => void; language: string }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [codes, setCodes] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  // One set per opening (React may run effects twice in development).
  const asked = useRef(false);

  useEffect(() => {
    if (asked.current) return;
    asked.current = true;
    newRecoveryCodes()
      .then((made) => {
        setCodes(made.codes);
        void queryClient.invalidateQueries({ queryKey: securityKeys.recoveryCodes });
      })
      .catch((failure: unknown) => setError(errorMessage(t, language, failure)));
  }, [queryClient, t, language]);

  const copy = async () => {
    if (!codes) return;
    try {
      await navigator.clipboard.writeText(codes.join('\n'));
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };

  const download = () => {
    if (!codes) return;
    const url = URL.createObjectURL(recoveryCodesFile(codes, t('account.recovery.fileTitle')));
    const link = document.createElement('a');
    link.href = url;
    link.download = t('account.recovery.fileName');
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <Dialog title={t('account.recovery.dialogTitle')} onClose={onClose} className="enrol-dialog">
      {error ? (
        <Banner variant="error" data-testid="recovery-error">
          {error}
        </Banner>
      ) : null}
      {codes ? (
        <>
          <p>{t('account.recovery.dialogIntro')}</p>
          <ol className="recovery-codes__list" data-testid="recovery-code-list">
            {codes.map((code) => (
              <li key={code}>
                <code>{code}</code>
              </li>
            ))}
          </ol>
          <div className="form-actions">
            <Button variant="secondary" onClick={() => void copy()} data-testid="recovery-copy">
              {copied ? t('account.recovery.copied') : t('account.recovery.copy')}
            </Button>
            <Button variant="secondary" onClick={download} data-testid="recovery-download">
              {t('account.recovery.download')}
            </Button>
            <Button onClick={onClose} data-testid="recovery-done">
              {t('account.recovery.done')}
            </Button>
          </div>
        </>
      ) : error ? (
        <div className="form-actions">
          <Button variant="secondary" onClick={onClose}>
            {t('common.close')}
          </Button>
        </div>
      ) : (
        <Spinner />
      )}
    </Dialog>
  );
}
