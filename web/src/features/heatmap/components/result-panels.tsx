import { useId, useMemo } from 'react';
import { useTranslation } from 'react-i18next';

import type { HeatmapResult } from '../api/heatmaps';
import { describeAttention } from '../lib/analysis';
import { scoreBand } from '../lib/attention';
import { formatIndex, formatPercent, formatScore } from '../lib/format';
import { shownMap, type Moment } from '../lib/view-state';

/** The attention score, big, with the band it falls in and what that means. */
export function ScoreCard({ score }: { score: number }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const band = scoreBand(score);
  return (
    <section className={`hm-score hm-score--${band}`} aria-labelledby={titleId} data-testid="attention-score" data-band={band}>
      <h3 id={titleId} className="hm-section-title">
        {t('heatmap.score.title')}
      </h3>
      <p className="hm-score__value">
        <span className="hm-score__number" data-testid="score-value">
          {formatScore(score, i18n.language)}
        </span>
        <span className="hm-score__max">{t('heatmap.score.outOf')}</span>
      </p>
      <p className="hm-score__band">{t(`heatmap.score.bands.${band}`)}</p>
      <p className="hm-score__help">{t(`heatmap.score.bandHelp.${band}`)}</p>
      <p className="hm-score__formula">{t('heatmap.score.formula')}</p>
    </section>
  );
}

/** Focus, clarity, top-10 % share and entropy, each with one line saying what it measures. */
export function MetricsList({ result }: { result: HeatmapResult }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const language = i18n.language;
  const metrics = [
    { key: 'focus', value: `${formatScore(result.focus, language)}${t('heatmap.score.outOf')}`, help: t('heatmap.metrics.focusHelp') },
    { key: 'clarity', value: `${formatScore(result.clarity, language)}${t('heatmap.score.outOf')}`, help: t('heatmap.metrics.clarityHelp') },
    { key: 'top10', value: formatPercent(result.top10_share, language), help: t('heatmap.metrics.top10Help') },
    { key: 'entropy', value: formatIndex(result.entropy, language), help: t('heatmap.metrics.entropyHelp') },
  ] as const;
  return (
    <section className="hm-metrics" aria-labelledby={titleId}>
      <h3 id={titleId} className="hm-section-title">
        {t('heatmap.metrics.title')}
      </h3>
      <dl className="hm-metrics__list">
        {metrics.map((metric) => (
          <div key={metric.key} className="hm-metric" data-testid={`metric-${metric.key}`}>
            <dt className="hm-metric__name">{t(`heatmap.metrics.${metric.key}`)}</dt>
            <dd className="hm-metric__value">{metric.value}</dd>
            <dd className="hm-metric__help">{metric.help}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/**
 * The analysis in plain words (lib/analysis.ts), in the interface language, of
 * the map shown: the first glance's or the exploration's.
 */
export function AnalysisPanel({ result, moment = 'exploration' }: { result: HeatmapResult; moment?: Moment }) {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const language = i18n.language;
  const shown = shownMap(result, moment);
  const analysis = useMemo(() => describeAttention(shown.analysis, t, language), [shown.analysis, t, language]);
  return (
    <section className="hm-analysis" aria-labelledby={titleId} data-testid="heatmap-analysis" data-moment={shown.moment}>
      <h3 id={titleId} className="hm-section-title">
        {shown.moment === 'glance' ? t('heatmap.analysis.titleGlance') : t('heatmap.analysis.title')}
      </h3>
      <p data-testid="analysis-summary">{analysis.summary}</p>
      {analysis.hotspots.length > 0 ? (
        <>
          <h4 className="hm-subtitle">{t('heatmap.analysis.orderTitle')}</h4>
          <ol className="hm-analysis__list">
            {analysis.hotspots.map((line, index) => (
              <li key={index}>{line}</li>
            ))}
          </ol>
        </>
      ) : null}
      <h4 className="hm-subtitle">{t('heatmap.analysis.regionsTitle')}</h4>
      <ul className="hm-analysis__list">
        <li>{analysis.faces}</li>
        <li>{analysis.texts}</li>
      </ul>
      <h4 className="hm-subtitle">{t('heatmap.analysis.adviceTitle')}</h4>
      <ul className="hm-analysis__list hm-analysis__advice" data-testid="analysis-advice">
        {analysis.advice.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ul>
    </section>
  );
}
