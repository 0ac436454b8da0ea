import { memo, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { fieldErrorKey } from '@/lib/api';
import { cn } from '@/lib/cn';

import { SLIDER_STEP, sliderDisplay, type SliderKey } from '../lib/editor';
import { DEFAULT_ADJUSTMENTS, SLIDERS, VIEW_DISTANCE, VIEW_SPEED, type Adjustments, type Night, type Site, type ViewFrom } from '../lib/types';

import type { Tool } from './preview-stage';

export type AdjustmentsPanelProps = {
  adjustments: Adjustments;
  onChange: (adjustments: Adjustments) => void;
  /** The lighting a night switch starts with (from the location's illumination). */
  nightDefault: Night;
  /** The location's panel size and passing distance; null: the view from there cannot be used. */
  site: Site | null;
  /** What the view from there's switch turns on (the location's farthest distance and speed). */
  viewDefault: ViewFrom;
  fieldErrors: Record<string, string>;
  tool: Tool;
  onTool: (tool: Tool) => void;
  brushSize: number;
  onBrushSize: (size: number) => void;
  onClearMask: () => void;
  maskPainted: boolean;
  disabled: boolean;
};

/**
 * The adjustments section: one labelled range input per setting with its value and a reset,
 * "reset all", automatic match, day / night (backlit paper or LED screen), the view from there
 * (distance and speed), and the occlusion mask tools (brush, eraser, size, clear) that paint on
 * the preview.
 */
export const AdjustmentsPanel = memo(function AdjustmentsPanel(props: AdjustmentsPanelProps) {
  const { adjustments, onChange, nightDefault, site, viewDefault, fieldErrors, tool, onTool, brushSize, onBrushSize, onClearMask, maskPainted, disabled } = props;
  const { t } = useTranslation();
  const ids = { auto: useId(), night: useId(), brush: useId(), mask: useId() };
  const set = (patch: Partial<Adjustments>) => onChange({ ...adjustments, ...patch });
  const changed = SLIDERS.some(({ key }) => adjustments[key] !== DEFAULT_ADJUSTMENTS[key]);

  return (
    <div className="sim-adjust">
      <div className="sim-sliders">
        {SLIDERS.map(({ key, min, max }) => (
          <SliderRow
            key={key}
            name={key}
            min={min}
            max={max}
            value={adjustments[key]}
            error={fieldErrors[`adjustments.${key}`]}
            disabled={disabled}
            onChange={(value) => set({ [key]: value })}
          />
        ))}
      </div>
      <Button variant="secondary" size="sm" onClick={() => set(pickSliders(DEFAULT_ADJUSTMENTS))} disabled={!changed || disabled} data-testid="reset-all">
        {t('simulation.adjust.resetAll')}
      </Button>

      <div className="sim-switches">
        <label className="sim-switch" htmlFor={ids.auto}>
          <input
            id={ids.auto}
            type="checkbox"
            role="switch"
            checked={adjustments.auto_match}
            disabled={disabled || adjustments.night !== null}
            onChange={(event) => set({ auto_match: event.target.checked })}
            data-testid="auto-match"
          />
          <span>
            <span className="sim-switch__label">{t('simulation.adjust.autoMatch')}</span>
            <span className="field__hint">{t(adjustments.night ? 'simulation.adjust.autoMatchNight' : 'simulation.adjust.autoMatchHelp')}</span>
          </span>
        </label>

        <fieldset className="sim-fieldset" disabled={disabled}>
          <legend className="ui-label">{t('simulation.adjust.dayNight')}</legend>
          <div className="sim-segmented" role="group">
            <Button variant="secondary" size="sm" aria-pressed={adjustments.night === null} onClick={() => set({ night: null })} data-testid="day">
              {t('simulation.adjust.day')}
            </Button>
            <Button
              variant="secondary"
              size="sm"
              aria-pressed={adjustments.night !== null}
              onClick={() => set({ night: adjustments.night ?? nightDefault })}
              data-testid="night"
            >
              {t('simulation.adjust.night')}
            </Button>
          </div>
          {adjustments.night ? (
            <div className="sim-radios" role="radiogroup" aria-labelledby={ids.night}>
              <span id={ids.night} className="field__hint">
                {t('simulation.adjust.lighting')}
              </span>
              {(['backlit', 'led'] as const).map((night) => (
                <label key={night} className="sim-radio">
                  <input type="radio" name={ids.night} checked={adjustments.night === night} onChange={() => set({ night })} />
                  <span>{t(`simulation.adjust.nightModes.${night}`)}</span>
                </label>
              ))}
            </div>
          ) : null}
          {fieldErrors['adjustments.night'] ? <p className="field__error">{t('fieldErrors.invalid_value')}</p> : null}
        </fieldset>
      </div>

      <ViewFromSection view={adjustments.view} onChange={(view) => set({ view })} site={site} viewDefault={viewDefault} fieldErrors={fieldErrors} disabled={disabled} />

      <fieldset className="sim-fieldset sim-mask" disabled={disabled} aria-describedby={ids.mask}>
        <legend className="ui-label">{t('simulation.mask.title')}</legend>
        <p id={ids.mask} className="field__hint">
          {t('simulation.mask.help')}
        </p>
        <div className="sim-segmented" role="group" aria-label={t('simulation.mask.tools')}>
          {(['corners', 'brush', 'eraser'] as const).map((name) => (
            <Button key={name} variant="secondary" size="sm" aria-pressed={tool === name} onClick={() => onTool(name)} data-testid={`tool-${name}`}>
              {t(`simulation.mask.tool.${name}`)}
            </Button>
          ))}
        </div>
        <div className="sim-slider">
          <label className="sim-slider__label" htmlFor={ids.brush}>
            {t('simulation.mask.size')}
          </label>
          <input
            id={ids.brush}
            type="range"
            min={0.005}
            max={0.2}
            step={0.005}
            value={brushSize}
            onChange={(event) => onBrushSize(Number(event.target.value))}
          />
          <output className="sim-slider__value" htmlFor={ids.brush}>
            {t('simulation.mask.sizeValue', { value: Math.round(brushSize * 1000) / 10 })}
          </output>
        </div>
        <Button variant="secondary" size="sm" onClick={onClearMask} disabled={!maskPainted} data-testid="clear-mask">
          {t('simulation.mask.clear')}
        </Button>
      </fieldset>
    </div>
  );
});

/** The largest distance of the slider (the number input goes on to the server's 1000 m). */
const VIEW_SLIDER_MAX = 300;

type ViewFromSectionProps = {
  view: ViewFrom | null;
  onChange: (view: ViewFrom | null) => void;
  site: Site | null;
  viewDefault: ViewFrom;
  fieldErrors: Record<string, string>;
  disabled: boolean;
};

/**
 * "View from there": a switch, then the distance (slider and number, metres) and the speed
 * (km/h), with the sentence saying what the preview shows. Without the panel's size it cannot
 * be turned on (a view already on can still be turned off).
 */
function ViewFromSection({ view, onChange, site, viewDefault, fieldErrors, disabled }: ViewFromSectionProps) {
  const { t, i18n } = useTranslation();
  const ids = { toggle: useId(), help: useId(), distance: useId(), speed: useId() };
  // Turned off then on again, the view comes back as it was.
  const [last, setLast] = useState<ViewFrom | null>(null);
  const number = (value: number) => value.toLocaleString(i18n.language, { maximumFractionDigits: 1 });
  const errorKey = Object.keys(fieldErrors).find((key) => key === 'adjustments.view' || key.startsWith('adjustments.view.'));
  const set = (patch: Partial<ViewFrom>) => {
    if (view) onChange({ ...view, ...patch });
  };
  let help: string;
  if (!site) help = t('simulation.adjust.viewFrom.noSize');
  else if (!view) help = t('simulation.adjust.viewFrom.help');
  else if (view.speed_kmh > 0) help = t('simulation.adjust.viewFrom.summary', { distance: number(view.distance_m), speed: number(view.speed_kmh) });
  else help = t('simulation.adjust.viewFrom.summaryStill', { distance: number(view.distance_m) });

  return (
    <fieldset className="sim-fieldset sim-view" disabled={disabled} data-testid="view-from">
      <legend className="ui-label">{t('simulation.adjust.viewFrom.title')}</legend>
      <label className="sim-switch" htmlFor={ids.toggle}>
        <input
          id={ids.toggle}
          type="checkbox"
          role="switch"
          checked={view !== null}
          disabled={!site && view === null}
          aria-describedby={ids.help}
          onChange={(event) => {
            if (event.target.checked) onChange(last ?? viewDefault);
            else {
              setLast(view);
              onChange(null);
            }
          }}
          data-testid="view-from-switch"
        />
        <span>
          <span className="sim-switch__label">{t('simulation.adjust.viewFrom.switch')}</span>
          <span id={ids.help} className="field__hint" data-testid="view-from-help">
            {help}
          </span>
        </span>
      </label>
      {view ? (
        <div className="sim-view__fields">
          <div className="sim-view__row">
            <label className="sim-slider__label" htmlFor={ids.distance}>
              {t('simulation.adjust.viewFrom.distance')}
            </label>
            <input
              type="range"
              min={VIEW_DISTANCE.min}
              max={VIEW_SLIDER_MAX}
              step={1}
              value={Math.min(view.distance_m, VIEW_SLIDER_MAX)}
              aria-label={t('simulation.adjust.viewFrom.distance')}
              aria-valuetext={t('simulation.adjust.viewFrom.metres', { value: number(view.distance_m) })}
              onChange={(event) => set({ distance_m: Number(event.target.value) })}
            />
            <NumberField
              id={ids.distance}
              value={view.distance_m}
              range={VIEW_DISTANCE}
              onChange={(distance_m) => set({ distance_m })}
              testId="view-distance"
            />
            <span className="sim-view__unit">{t('simulation.adjust.viewFrom.metresUnit')}</span>
          </div>
          <div className="sim-view__row">
            <label className="sim-slider__label" htmlFor={ids.speed}>
              {t('simulation.adjust.viewFrom.speed')}
            </label>
            <span />
            <NumberField id={ids.speed} value={view.speed_kmh} range={VIEW_SPEED} onChange={(speed_kmh) => set({ speed_kmh })} testId="view-speed" />
            <span className="sim-view__unit">{t('simulation.adjust.viewFrom.speedUnit')}</span>
          </div>
        </div>
      ) : null}
      {errorKey ? <p className="field__error">{t(fieldErrorKey(fieldErrors[errorKey]))}</p> : null}
    </fieldset>
  );
}

type NumberFieldProps = {
  id: string;
  value: number;
  range: { min: number; max: number };
  onChange: (value: number) => void;
  testId: string;
};

/**
 * A number input that sends only values within `range` and lets the text pass through others
 * (empty, out of range) while typed; on leaving it shows the value in force again.
 */
function NumberField({ id, value, range, onChange, testId }: NumberFieldProps) {
  const [text, setText] = useState(String(value));
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(String(value));
  }
  return (
    <input
      id={id}
      className="ui-input sim-view__number"
      type="number"
      inputMode="decimal"
      min={range.min}
      max={range.max}
      step={1}
      value={text}
      onChange={(event) => {
        setText(event.target.value);
        const n = Number(event.target.value);
        if (event.target.value.trim() !== '' && Number.isFinite(n) && n >= range.min && n <= range.max) onChange(n);
      }}
      onBlur={() => setText(String(value))}
      data-testid={testId}
    />
  );
}

function pickSliders(adjustments: Adjustments): Partial<Adjustments> {
  return Object.fromEntries(SLIDERS.map(({ key }) => [key, adjustments[key]]));
}

type SliderRowProps = {
  name: SliderKey;
  min: number;
  max: number;
  value: number;
  error?: string;
  disabled: boolean;
  onChange: (value: number) => void;
};

function SliderRow({ name, min, max, value, error, disabled, onChange }: SliderRowProps) {
  const { t } = useTranslation();
  const id = useId();
  const errorId = useId();
  const label = t(`simulation.adjust.sliders.${name}`);
  const display = sliderDisplay(value, min);
  return (
    <div className={cn('sim-slider', error && 'sim-slider--error')} data-testid={`slider-${name}`}>
      <label className="sim-slider__label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={SLIDER_STEP}
        value={value}
        disabled={disabled}
        aria-valuetext={display}
        aria-describedby={error ? errorId : undefined}
        aria-invalid={error ? true : undefined}
        onChange={(event) => onChange(Number(event.target.value))}
      />
      <output className="sim-slider__value" htmlFor={id}>
        {display}
      </output>
      <Button
        variant="ghost"
        size="sm"
        className="sim-slider__reset"
        onClick={() => onChange(0)}
        disabled={disabled || value === 0}
        aria-label={t('simulation.adjust.resetOne', { name: label })}
        title={t('simulation.adjust.resetOne', { name: label })}
      >
        <span aria-hidden="true">↺</span>
      </Button>
      {error ? (
        <p id={errorId} className="field__error sim-slider__error">
          {t(`fieldErrors.${error === 'out_of_range' ? 'out_of_range' : 'invalid_type'}`)}
        </p>
      ) : null}
    </div>
  );
}
