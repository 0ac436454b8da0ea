import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Button } from '@/components/ui/button';
import type { Schemas } from '@/lib/api';

import type { Simulation } from '../api/simulations';

type PanelText = Schemas['PanelText'];

/** At most this many lines are listed (largest letters first); the rest are counted. */
const SHOWN = 8;

export type LegibilityPanelProps = {
  simulation: Simulation;
  /** Shows the preview from this distance (metres): the editor's view from there; absent, no button. */
  onViewFrom?: (distance: number) => void;
};

/**
 * Which of the creative's texts can be read from where the panel is seen, and for how long the
 * main one is in view (docs/viewing.md), for the saved fit on the location's panel; a button
 * shows the preview as seen from the farthest viewing distance.
 */
export function LegibilityPanel({ simulation, onViewFrom }: LegibilityPanelProps) {
  const { t, i18n } = useTranslation();
  const number = (value: number, digits = 0) =>
    value.toLocaleString(i18n.language, { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const { legibility, location, creative } = simulation;
  const locationLink = location ? `/locations/${encodeURIComponent(location.id)}` : null;

  let body;
  if (!legibility) {
    body = (
      <p className="field__hint" data-testid="legibility-missing">
        {t('simulation.legibility.noSize')}{' '}
        {locationLink ? <Link to={locationLink}>{t('simulation.legibility.editLocation')}</Link> : null}
      </p>
    );
  } else {
    const { texts, viewing } = legibility;
    const min = location?.viewing_distance_min_m;
    const max = location?.viewing_distance_max_m;
    body = (
      <>
        {viewing && min != null && max != null ? (
          <div className="viewing-summary" data-testid="legibility-time">
            <p className="viewing-summary__figure">{t('simulation.legibility.timeInView', { seconds: number(viewing.time_in_view_s, 1) })}</p>
            <p className="field__hint">
              {t('simulation.legibility.conditions', {
                letter: number(viewing.letter_height_mm),
                distance: number(viewing.legible_distance_m),
                comfortable: number(viewing.comfortable_distance_m),
                min: number(min, min % 1 ? 1 : 0),
                max: number(max, max % 1 ? 1 : 0),
                speed: number(viewing.speed_kmh),
              })}
            </p>
          </div>
        ) : (
          <p className="field__hint" data-testid="legibility-no-conditions">
            {t('simulation.legibility.noConditions')}{' '}
            {locationLink ? <Link to={locationLink}>{t('simulation.legibility.editLocation')}</Link> : null}
          </p>
        )}
        {onViewFrom && max != null && max > 0 ? (
          <div className="legibility__view">
            <Button variant="secondary" size="sm" onClick={() => onViewFrom(max)} data-testid="legibility-view-from">
              {t('simulation.legibility.viewFrom', { distance: number(max, max % 1 ? 1 : 0) })}
            </Button>
            <span className="field__hint">{t('simulation.legibility.viewFromHelp')}</span>
          </div>
        ) : null}
        {texts.length === 0 ? (
          <p className="field__hint">{t('simulation.legibility.noText')}</p>
        ) : (
          <ul className="legibility-list" data-testid="legibility-texts">
            {texts.slice(0, SHOWN).map((text, index) => (
              <li key={`${text.x}:${text.y}`} className="legibility-item" data-reading={verdictOf(text)}>
                {creative ? <TextCrop text={text} src={creative.media.urls.preview} width={creative.media.width} height={creative.media.height} /> : null}
                <div className="legibility-item__text">
                  <p className="legibility-item__title">
                    {t('simulation.legibility.line', { n: index + 1, letter: number(text.letter_height_mm) })}
                  </p>
                  <p className={`legibility-item__verdict legibility-item__verdict--${verdictOf(text)}`}>
                    <VerdictText text={text} max={max} number={number} />
                  </p>
                </div>
              </li>
            ))}
          </ul>
        )}
        {texts.length > SHOWN ? <p className="field__hint">{t('simulation.legibility.more', { count: texts.length - SHOWN })}</p> : null}
        <p className="field__hint">{t('simulation.legibility.rule')}</p>
      </>
    );
  }
  return (
    <section className="card sim-section legibility" aria-labelledby="simulation-legibility" data-testid="legibility">
      <h2 id="simulation-legibility" className="card__title">
        {t('simulation.legibility.title')}
      </h2>
      {body}
    </section>
  );
}

type Verdict = 'cropped' | 'whole' | 'part' | 'never' | 'unknown';

function verdictOf(text: PanelText): Verdict {
  if (text.shown < 0.5) return 'cropped';
  return text.reading ?? 'unknown';
}

/** What the verdict line says of a text. */
function VerdictText({ text, max, number }: { text: PanelText; max: number | null | undefined; number: (value: number, digits?: number) => string }) {
  const { t } = useTranslation();
  const distance = number(text.legible_distance_m);
  const comfortable = number(text.comfortable_distance_m);
  const needed = number(text.needed_mm ?? 0);
  const far = number(max ?? 0);
  switch (verdictOf(text)) {
    case 'cropped':
      return t('simulation.legibility.cropped');
    case 'whole':
      return t('simulation.legibility.whole', { distance, comfortable });
    case 'part':
      return t('simulation.legibility.part', { distance, comfortable, needed, max: far });
    case 'never':
      return t('simulation.legibility.never', { needed, letter: number(text.letter_height_mm), max: far });
    default:
      return t('simulation.legibility.readsFrom', { distance, comfortable });
  }
}

/** The start of the line, cut out of the creative's preview at a readable height, undistorted. */
function TextCrop({ text, src, width, height }: { text: PanelText; src: string; width: number; height: number }) {
  const CROP_HEIGHT = 28;
  const MAX_WIDTH = 160;
  // The box holds the letters' rows: a quarter of their height above and below shows them whole.
  const top = text.y - text.height / 4;
  const boxHeight = Math.max(text.height * 1.5 * height, 1);
  const scale = CROP_HEIGHT / boxHeight;
  return (
    <span
      className="legibility-item__crop"
      aria-hidden="true"
      style={{
        width: Math.min(MAX_WIDTH, Math.max(text.width * width * scale, CROP_HEIGHT)),
        height: CROP_HEIGHT,
        backgroundImage: `url("${src}")`,
        backgroundSize: `${width * scale}px ${height * scale}px`,
        backgroundPosition: `${-text.x * width * scale}px ${-top * height * scale}px`,
      }}
    />
  );
}
