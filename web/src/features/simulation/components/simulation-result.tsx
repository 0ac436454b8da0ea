import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Button } from '@/components/ui/button';
import { apiErrorKey } from '@/lib/api';

import { isRunning, useAnalyseSimulation, useRenderSimulation, type Simulation } from '../api/simulations';
import { formatPercent, formatRatio } from '../lib/format';

import { SimulationStatusBadge } from './status-badge';

/** Failure codes of the render job with their own sentence; anything else is the generic one. */
const FAILURES = ['source_missing', 'invalid_image', 'internal'] as const;

/**
 * The saved simulation's state under the editor: status (live), the full-resolution render with
 * its downloads when done, the failure with Retry, and "Analyse attention" with its result.
 */
export function SimulationResult({ simulation, readOnly = false }: { simulation: Simulation; readOnly?: boolean }) {
  const { t, i18n } = useTranslation();
  const render = useRenderSimulation();
  const analyse = useAnalyseSimulation();
  const { status, output, downloads, attention } = simulation;
  // Answers before contacts existed (and test fixtures) have no audience.
  const audience = simulation.audience as Simulation['audience'] | undefined;
  const code = simulation.error?.code;
  const failure: (typeof FAILURES)[number] = FAILURES.find((known) => known === code) ?? 'internal';
  const analysing = attention && (attention.status === 'queued' || attention.status === 'processing');

  return (
    <section className="sim-result" aria-labelledby="sim-result-title" data-testid="sim-result" data-status={status}>
      <header className="sim-result__header">
        <h2 id="sim-result-title" className="card__title">
          {t('simulation.result.title')}
        </h2>
        <SimulationStatusBadge status={status} />
      </header>
      <p className="sim-result__status" role="status" data-testid="sim-status">
        {isRunning(status) ? <span className="ui-spinner ui-spinner--sm" aria-hidden="true"><span className="ui-spinner__circle" /></span> : null}
        <span>{t(`simulation.result.statusText.${status}`)}</span>
      </p>
      {status === 'failed' ? (
        <div className="sim-result__failed">
          <p role="alert" className="form-error" data-testid="sim-error">
            {t(`simulation.result.errors.${failure}`)}
          </p>
          {readOnly ? null : (
            <Button variant="secondary" onClick={() => render.mutate(simulation.id)} disabled={render.isPending} data-testid="retry-render">
              {render.isPending ? t('simulation.result.retrying') : t('common.retry')}
            </Button>
          )}
          {render.isError ? (
            <p role="alert" className="form-error">
              {t(apiErrorKey(render.error))}
            </p>
          ) : null}
        </div>
      ) : null}
      {output ? (
        <figure className="sim-result__figure">
          <a href={output.urls.original} target="_blank" rel="noreferrer">
            <img
              className="sim-result__image"
              src={output.urls.preview}
              alt={t('simulation.result.renderAlt', { name: simulation.name })}
              width={output.width}
              height={output.height}
              data-testid="render-image"
            />
          </a>
          <figcaption className="field__hint">
            {t('simulation.result.size', { width: output.width, height: output.height })}
            {isRunning(status) ? ` · ${t('simulation.result.previous')}` : ''}
          </figcaption>
        </figure>
      ) : null}
      <div className="sim-result__side">
        {downloads ? (
          <div className="sim-result__actions">
            <a className="ui-button ui-button--primary ui-button--md" href={downloads.png} download data-testid="download-png">
              {t('simulation.result.downloadPng')}
            </a>
            <a className="ui-button ui-button--secondary ui-button--md" href={downloads.jpeg} download data-testid="download-jpeg">
              {t('simulation.result.downloadJpeg')}
            </a>
          </div>
        ) : null}
        {status === 'done' && output ? (
          <div className="sim-attention" data-testid="sim-attention">
            <h3 className="sim-attention__title">{t('simulation.attention.title')}</h3>
            {attention && attention.status === 'done' && attention.panel_share !== null ? (
              <dl className="sim-attention__stats">
                {attention.first_second_probability != null ? (
                  <div className="sim-attention__lead">
                    <dt>{t('simulation.attention.firstSecond')}</dt>
                    <dd data-testid="attention-first-second">{formatPercent(attention.first_second_probability, i18n.language)}</dd>
                  </div>
                ) : null}
                <div>
                  <dt>{t('simulation.attention.share')}</dt>
                  <dd data-testid="attention-share">{formatPercent(attention.panel_share, i18n.language)}</dd>
                </div>
                {attention.area_share !== null ? (
                  <div>
                    <dt>{t('simulation.attention.area')}</dt>
                    <dd>{formatPercent(attention.area_share, i18n.language)}</dd>
                  </div>
                ) : null}
                {attention.visibility !== null ? (
                  <div>
                    <dt>{t('simulation.attention.visibility')}</dt>
                    <dd data-testid="attention-visibility">{t('simulation.attention.times', { value: formatRatio(attention.visibility, i18n.language) })}</dd>
                  </div>
                ) : null}
              </dl>
            ) : null}
            {attention?.status === 'done' && attention.first_second_probability != null ? (
              <p className="field__hint">{t('simulation.attention.firstSecondHint')}</p>
            ) : null}
            {attention?.status === 'done' && audience?.noticed_per_day != null && audience.daily_contacts != null ? (
              <div className="sim-audience" data-testid="sim-audience">
                <p className="sim-audience__figure">
                  {t('simulation.audience.noticed', {
                    noticed: audience.noticed_per_day.toLocaleString(i18n.language),
                    contacts: audience.daily_contacts.toLocaleString(i18n.language),
                  })}
                </p>
                <p className="field__hint">{t('plans.noticedMeans')}</p>
                <p className="field__hint">{t('plans.reliability')}</p>
              </div>
            ) : null}
            {attention?.status === 'done' && attention.panel_share !== null ? (
              <p className="field__hint">
                {t('simulation.attention.sentence', {
                  share: formatPercent(attention.panel_share, i18n.language),
                  area: formatPercent(attention.area_share ?? 0, i18n.language),
                })}
              </p>
            ) : null}
            {analysing ? (
              <p className="sim-result__status" role="status">
                <span className="ui-spinner ui-spinner--sm" aria-hidden="true"><span className="ui-spinner__circle" /></span>
                <span>{t('simulation.attention.running')}</span>
              </p>
            ) : null}
            {attention?.status === 'failed' ? <p className="form-error">{t('simulation.attention.failed')}</p> : null}
            <div className="sim-result__actions">
              {readOnly ? null : (
                <Button
                  variant={attention ? 'secondary' : 'primary'}
                  onClick={() => analyse.mutate(simulation.id)}
                  disabled={analyse.isPending || Boolean(analysing)}
                  data-testid="analyse"
                >
                  {analyse.isPending ? t('simulation.attention.starting') : attention ? t('simulation.attention.again') : t('simulation.attention.run')}
                </Button>
              )}
              {attention ? (
                <Link to={`/heatmap/results/${encodeURIComponent(attention.heatmap_id)}`} data-testid="heatmap-link">
                  {t('simulation.attention.open')}
                </Link>
              ) : null}
            </div>
            {analyse.isError ? (
              <p role="alert" className="form-error">
                {t(apiErrorKey(analyse.error))}
              </p>
            ) : null}
          </div>
        ) : null}
      </div>
    </section>
  );
}
