import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Input } from '@/components/ui/input';
import { Select } from '@/components/ui/select';
import { apiErrorKey } from '@/lib/api';
import { formatDate } from '@/lib/dates';

import { SHARE_DAYS, sharesQueryOptions, useCreateShare, useRevokeShare, type NewShare } from '../api/heatmaps';

/**
 * Read-only links to a heatmap for a client: choose how long one lasts, make
 * it, copy it (it is shown once: only its hash is kept), and revoke any link, once confirmed
 * (a client may be reading it).
 */
export function SharePanel({ heatmapId }: { heatmapId: string }) {
  const { t, i18n } = useTranslation();
  const ids = { title: useId(), days: useId(), link: useId() };
  const [days, setDays] = useState<number>(30);
  const [made, setMade] = useState<NewShare | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<string | null>(null);
  const shares = useQuery(sharesQueryOptions(heatmapId));
  const create = useCreateShare(heatmapId);
  const revoke = useRevokeShare(heatmapId);
  const language = i18n.language;
  const url = made ? `${window.location.origin}${made.path}` : '';

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied(true);
    } catch {
      // No clipboard (an insecure page): the link stays selected in its field for a manual copy.
      document.getElementById(ids.link)?.focus();
    }
  };

  return (
    <section className="hm-share" aria-labelledby={ids.title} data-testid="share-panel">
      <h2 id={ids.title} className="hm-section-title">
        {t('heatmap.share.title')}
      </h2>
      <p className="field__hint">{t('heatmap.share.hint')}</p>
      <div className="hm-share__make">
        <label htmlFor={ids.days}>{t('heatmap.share.days')}</label>
        <Select id={ids.days} value={days} onChange={(event) => setDays(Number(event.target.value))}>
          {SHARE_DAYS.map((value) => (
            <option key={value} value={value}>
              {t('heatmap.share.dayCount', { count: value })}
            </option>
          ))}
        </Select>
        <Button
          variant="secondary"
          disabled={create.isPending}
          onClick={() =>
            create.mutate(days, {
              onSuccess: (share) => {
                setMade(share);
                setCopied(false);
              },
            })
          }
          data-testid="create-share"
        >
          {t('heatmap.share.create')}
        </Button>
      </div>
      {made ? (
        <div className="hm-share__made">
          <label htmlFor={ids.link}>{t('heatmap.share.link')}</label>
          <div className="hm-share__row">
            <Input
              id={ids.link}
              readOnly
              value={url}
              onFocus={(event) => event.target.select()}
              data-testid="share-url"
            />
            <Button variant="secondary" onClick={() => void copy()}>
              {t('heatmap.share.copy')}
            </Button>
          </div>
          <p className="field__hint" role="status">
            {copied ? t('heatmap.share.copied') : t('heatmap.share.once', { date: formatDate(new Date(made.expires_at), language) })}
          </p>
        </div>
      ) : null}
      {create.isError ? (
        <p role="alert" className="form-error">
          {t(apiErrorKey(create.error))}
        </p>
      ) : null}
      {shares.data && shares.data.items.length > 0 ? (
        <ul className="hm-share__list" aria-label={t('heatmap.share.listLabel')}>
          {shares.data.items.map((share) => (
            <li key={share.id} className="hm-share__item" data-testid="share">
              <span>
                {share.expired
                  ? t('heatmap.share.expired', { date: formatDate(new Date(share.expires_at), language) })
                  : t('heatmap.share.valid', {
                      created: formatDate(new Date(share.created_at), language),
                      date: formatDate(new Date(share.expires_at), language),
                    })}
              </span>
              <Button
                variant="ghost"
                size="sm"
                onClick={() => {
                  revoke.reset();
                  setRevoking(share.id);
                }}
              >
                {t('heatmap.share.revoke')}
              </Button>
            </li>
          ))}
        </ul>
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title={t('heatmap.share.revokeTitle')}
          confirmLabel={t('heatmap.share.revoke')}
          busy={revoke.isPending}
          busyLabel={t('heatmap.share.revoking')}
          error={revoke.isError ? t(apiErrorKey(revoke.error)) : null}
          onCancel={() => setRevoking(null)}
          onConfirm={() =>
            revoke.mutate(revoking, {
              onSuccess: () => {
                setMade((current) => (current?.id === revoking ? null : current));
                setRevoking(null);
              },
            })
          }
        >
          <p>{t('heatmap.share.revokeBody')}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
