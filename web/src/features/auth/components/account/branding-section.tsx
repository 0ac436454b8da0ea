import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { FilePicker } from '@/components/file-picker';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { Spinner } from '@/components/ui/spinner';
import { isApiError, uploadMedia, type Media } from '@/lib/api';
import { errorMessage } from '@/lib/error-message';

import { brandingQuery, saveBranding, securityKeys, type Branding } from '../../api/security';

/** Regard's own accent: what the colour field shows until the agency picks its own. */
const DEFAULT_ACCENT = '#1d4ed8';

/**
 * The agency's branding: its name, accent colour and logo, on the PDF reports (cover and
 * footers) and on the pages its share links open. Every part is optional.
 */
export function BrandingSection() {
  const { t } = useTranslation();
  const titleId = useId();
  const branding = useQuery(brandingQuery());
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-branding">
      <h2 id={titleId} className="panel__title">
        {t('account.branding.title')}
      </h2>
      <p className="account-section__muted">{t('account.branding.intro')}</p>
      {branding.isPending ? <Spinner /> : null}
      {branding.isError ? <QueryError error={branding.error} onRetry={() => void branding.refetch()} /> : null}
      {branding.isSuccess ? <BrandingForm saved={branding.data} /> : null}
    </section>
  );
}

function BrandingForm({ saved }: { saved: Branding }) {
  const { t, i18n } = useTranslation();
  const language = i18n.resolvedLanguage ?? i18n.language;
  const ids = { name: useId(), colour: useId(), colourHint: useId() };
  const queryClient = useQueryClient();
  const [name, setName] = useState(saved.agency_name ?? '');
  const [colour, setColour] = useState<string | null>(saved.accent_color);
  const [logo, setLogo] = useState<Media | null>(saved.logo);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  const save = useMutation({
    mutationFn: saveBranding,
    onSuccess: (branding) => {
      queryClient.setQueryData(securityKeys.branding, branding);
      setDone(true);
    },
  });

  const chooseLogo = async (file: File | undefined) => {
    if (!file) return;
    setUploading(true);
    setUploadError(null);
    setDone(false);
    try {
      setLogo(await uploadMedia(file));
    } catch (failure) {
      setUploadError(errorMessage(t, language, failure));
    } finally {
      setUploading(false);
    }
  };

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(false);
    save.mutate({ agency_name: name.trim() || null, accent_color: colour, logo_media_id: logo?.id ?? null });
  };

  const fields = isApiError(save.error) ? save.error.fields : {};
  return (
    <form className="account-form branding-form" onSubmit={submit} noValidate>
      {done ? <Banner variant="info">{t('account.branding.saved')}</Banner> : null}
      {save.isError && Object.keys(fields).length === 0 ? <Banner variant="error">{errorMessage(t, language, save.error)}</Banner> : null}
      <div className="field">
        <Label htmlFor={ids.name}>{t('account.branding.name')}</Label>
        <Input
          id={ids.name}
          maxLength={80}
          value={name}
          placeholder={t('account.branding.namePlaceholder')}
          onChange={(event) => setName(event.currentTarget.value)}
          aria-invalid={fields.agency_name ? true : undefined}
          data-testid="branding-name"
        />
      </div>
      <div className="field">
        <Label htmlFor={ids.colour}>{t('account.branding.colour')}</Label>
        <div className="branding-form__colour">
          <input
            id={ids.colour}
            type="color"
            className="branding-form__swatch"
            value={colour ?? DEFAULT_ACCENT}
            onChange={(event) => setColour(event.currentTarget.value)}
            aria-describedby={ids.colourHint}
            data-testid="branding-colour"
          />
          <code>{colour ?? t('account.branding.colourDefault')}</code>
          {colour ? (
            <Button variant="ghost" size="sm" onClick={() => setColour(null)}>
              {t('account.branding.colourReset')}
            </Button>
          ) : null}
        </div>
        <p className="field__hint" id={ids.colourHint}>
          {t('account.branding.colourHint')}
        </p>
      </div>
      <div className="branding-form__logo-field">
        <FilePicker
          label={t('account.branding.logo')}
          hint={uploading ? t('account.branding.uploading') : t('account.branding.logoHint')}
          accept="image/png,image/jpeg,image/webp"
          fileName={logo?.original_name ?? null}
          chooseLabel={logo ? t('account.branding.logoReplace') : t('account.branding.logoChoose')}
          emptyLabel={t('account.branding.logoNone')}
          disabled={uploading}
          testId="branding-logo-file"
          onChange={(file) => void chooseLogo(file ?? undefined)}
        />
        {logo ? <img className="branding-form__logo" src={logo.urls.preview} alt={t('account.branding.logoAlt')} data-testid="branding-logo" /> : null}
        {logo ? (
          <Button variant="ghost" size="sm" onClick={() => setLogo(null)} data-testid="branding-logo-remove">
            {t('account.branding.logoRemove')}
          </Button>
        ) : null}
        {uploadError ? (
          <p className="form-error" role="alert">
            {uploadError}
          </p>
        ) : null}
      </div>
      <Button type="submit" disabled={save.isPending || uploading} aria-busy={save.isPending} data-testid="branding-save">
        {save.isPending ? t('common.saving') : t('account.branding.save')}
      </Button>
    </form>
  );
}
